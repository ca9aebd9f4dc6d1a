package dev.keypool.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import dev.keypool.routing.ModelGroup;

/** The top level of {@code keypool.yaml}, and the checks that need the whole file: channel and tenant references. */
final class ConfigBinder {

    private static final Set<String> FIELDS = Set.of("channels", "tenants", "admin", "queue", "redis", "database", "requestLog",
            "alerts", "modelGroups");

    private final ChannelBinder channelBinder = new ChannelBinder();
    private final TenantBinder tenantBinder = new TenantBinder();
    private final ModelGroupBinder modelGroupBinder = new ModelGroupBinder();

    /** @return the bound configuration, only meaningful when no problem was reported; null when nothing could be read */
    GatewayConfig bind(ConfigNode root) {
        // an empty file is an absent root: say what is missing rather than "must be a mapping"
        if (!root.isAbsent() && !root.checkMapping(FIELDS)) {
            return null;
        }
        UniqueNames channelNames = new UniqueNames("channel");
        List<ChannelBinder.BoundChannel> bound = new ArrayList<>();
        for (ConfigNode item : root.field("channels").nonEmptyList()) {
            channelBinder.bind(item, channelNames).ifPresent(bound::add);
        }
        for (ChannelBinder.BoundChannel channel : bound) {
            ChannelReferences.check(channel.fallback(), channelNames.seen(), channel.config().name());
        }
        List<TenantConfig> tenants = tenantBinder.bind(root.field("tenants"), channelNames.seen());
        Set<String> tenantNames = tenants.stream().map(TenantConfig::name).collect(Collectors.toSet());
        for (ChannelBinder.BoundChannel channel : bound) {
            for (ChannelReferences.Ref tenant : channel.keyTenants()) {
                if (!tenantNames.contains(tenant.name())) {
                    tenant.node().problem("unknown tenant " + Problems.quote(tenant.name()));
                }
            }
        }
        Map<String, ChannelConfig> channelsByName = new HashMap<>();
        bound.forEach(c -> channelsByName.put(c.config().name(), c.config()));
        List<ModelGroup> modelGroups = modelGroupBinder.bind(root.field("modelGroups"), channelsByName);
        return new GatewayConfig(
                bound.stream().map(ChannelBinder.BoundChannel::config).toList(),
                tenants,
                admin(root.field("admin")),
                queue(root.field("queue")),
                redis(root.field("redis")),
                database(root.field("database")),
                requestLog(root.field("requestLog")),
                new AlertsBinder().bind(root.field("alerts")),
                modelGroups);
    }

    /** No {@code database} block: SQLite in state.dir; {@code url} names a PostgreSQL server instead. */
    private static DatabaseConfig database(ConfigNode node) {
        if (node.isAbsent() || !node.checkMapping(Set.of("url", "retention"))) {
            return DatabaseConfig.DEFAULT;
        }
        Optional<String> url = Optional.empty();
        if (!node.field("url").isAbsent()) {
            // the URL may carry a password: no message may quote it
            url = node.field("url").requiredSecret();
            if (url.isPresent() && !DatabaseConfig.isPostgres(url.get())) {
                node.field("url").problem("must be a PostgreSQL URL (postgresql://user:password@host:5432/db or "
                        + "jdbc:postgresql://...); leave it out for SQLite in state.dir");
                url = Optional.empty();
            }
        }
        Duration retention = node.field("retention").positiveDuration().orElse(DatabaseConfig.DEFAULT.retention());
        return new DatabaseConfig(url, retention);
    }

    /** No {@code requestLog} block: every request is logged. */
    private static RequestLogConfig requestLog(ConfigNode node) {
        if (node.isAbsent() || !node.checkMapping(Set.of("enabled", "bodies"))) {
            return RequestLogConfig.DEFAULT;
        }
        return new RequestLogConfig(node.field("enabled").bool().orElse(RequestLogConfig.DEFAULT.enabled()),
                node.field("bodies").bool().orElse(RequestLogConfig.DEFAULT.bodies()));
    }

    /** No {@code redis} block means every state stays in this instance; a block needs a {@code url}. */
    private static RedisConfig redis(ConfigNode node) {
        if (node.isAbsent() || !node.checkMapping(Set.of("url", "keyPrefix", "timeout"))) {
            return null;
        }
        // the URL may carry a password: no message may quote it
        Optional<String> url = node.field("url").requiredSecret();
        String prefix = node.field("keyPrefix").text().filter(p -> !p.isEmpty()).orElse(RedisConfig.DEFAULT_PREFIX);
        Duration timeout = node.field("timeout").positiveDuration().orElse(RedisConfig.DEFAULT_TIMEOUT);
        return url.map(u -> new RedisConfig(u, prefix, timeout)).orElse(null);
    }

    /** Left out, the design's example values; each field left out, its value from them. */
    private static QueueConfig queue(ConfigNode node) {
        if (node.isAbsent() || !node.checkMapping(Set.of("maxWait", "maxSize"))) {
            return QueueConfig.DEFAULT;
        }
        return new QueueConfig(node.field("maxWait").duration().orElse(QueueConfig.DEFAULT.maxWait()),
                node.field("maxSize").integer(1).orElse(QueueConfig.DEFAULT.maxSize()));
    }

    /** No {@code admin} block means the admin API is off; a block without a usable token is a mistake. */
    private static AdminConfig admin(ConfigNode node) {
        if (node.isAbsent() || !node.checkMapping(Set.of("token", "watchConfig"))) {
            return null;
        }
        boolean watch = node.field("watchConfig").bool().orElse(false);
        return node.field("token").requiredSecret().map(token -> new AdminConfig(token, watch)).orElse(null);
    }
}
