package dev.keypool.config;

import java.util.List;
import java.util.Optional;

import dev.keypool.routing.ModelGroup;

/**
 * The whole of {@code keypool.yaml}, validated: channels in configuration order (the first channel serving a
 * model is its primary), tenants (empty = the gateway is open), the admin settings (null = admin API off) and the
 * shared state (null = everything stays in this instance), the control plane's database and its request log, the
 * alerts and the model groups (design §16).
 */
public record GatewayConfig(List<ChannelConfig> channels, List<TenantConfig> tenants, AdminConfig admin,
                            QueueConfig queue, RedisConfig redis, DatabaseConfig database, RequestLogConfig requestLog,
                            AlertsConfig alerts, List<ModelGroup> modelGroups) {

    /** With the default database (SQLite in state.dir) and request log. */
    public GatewayConfig(List<ChannelConfig> channels, List<TenantConfig> tenants, AdminConfig admin, QueueConfig queue,
                         RedisConfig redis) {
        this(channels, tenants, admin, queue, redis, DatabaseConfig.DEFAULT, RequestLogConfig.DEFAULT,
                AlertsConfig.DEFAULT, List.of());
    }

    /** Without alerts or model groups. */
    public GatewayConfig(List<ChannelConfig> channels, List<TenantConfig> tenants, AdminConfig admin, QueueConfig queue,
                         RedisConfig redis, DatabaseConfig database, RequestLogConfig requestLog) {
        this(channels, tenants, admin, queue, redis, database, requestLog, AlertsConfig.DEFAULT, List.of());
    }

    public GatewayConfig {
        channels = Copies.list(channels);
        tenants = Copies.list(tenants);
        modelGroups = Copies.list(modelGroups);
    }

    /** Whether a key or a tenant has a token limit: requests then count their prompt's tokens (design §6). */
    public boolean countsTokens() {
        return channels.stream().flatMap(channel -> channel.keys().stream())
                .anyMatch(key -> key.limits().countsTokens())
                || tenants.stream().anyMatch(tenant -> tenant.tpm() != null);
    }

    /** The same configuration with these channels. */
    public GatewayConfig withChannels(List<ChannelConfig> replaced) {
        return new GatewayConfig(replaced, tenants, admin, queue, redis, database, requestLog, alerts, modelGroups);
    }

    public Optional<ChannelConfig> channel(String name) {
        return channels.stream().filter(c -> c.name().equals(name)).findFirst();
    }
}
