package dev.keypool.camel.admin;

import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.admin.Cluster;
import dev.keypool.admin.Member;
import dev.keypool.breaker.BreakerFigures;
import dev.keypool.breaker.BreakerTrigger;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.config.KeyConfig;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.quota.CapacityQueue;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyStats;
import dev.keypool.quota.CostLedger;
import dev.keypool.quota.KeyQuota;
import dev.keypool.redis.SharedState;
import dev.keypool.tenant.RateLimits;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.TenantUsage;
import dev.keypool.tenant.Tenants;
import org.apache.camel.Exchange;

/** GET /admin/status: every channel's breaker with its trigger figures and fallback chain, every key's state, health,
 * effective weight, quota use, counters and cost; each channel's cost per upstream model (fingerprints only); every
 * tenant's limits and usage, own and borrowed (never its token); and the instances sharing a Redis, each with its
 * heartbeat and the digest of the keypool.yaml it runs. */
public final class AdminStatus {

    private final Channels channels;
    private final CapacityQueue queue;
    private final ObjectMapper mapper;
    private final Tenants tenants;
    private final Cluster cluster;
    private final SharedState shared;
    private final Clock clock;

    public AdminStatus(Channels channels, CapacityQueue queue, Tenants tenants, ObjectMapper mapper, Cluster cluster,
                       SharedState shared, Clock clock) {
        this.cluster = cluster;
        this.shared = shared;
        this.clock = clock;
        this.channels = channels;
        this.tenants = tenants;
        this.queue = queue;
        this.mapper = mapper;
    }

    public void status(Exchange exchange) throws Exception {
        ObjectNode root = mapper.createObjectNode();
        root.put("instance", cluster.instance());
        root.set("cluster", cluster());
        ArrayNode list = root.putArray("channels");
        for (Channel channel : channels.all()) {
            list.add(channel(channel));
        }
        // requests waiting for quota room (queue.maxWait), and how long the waits were
        root.putObject("queue").put("waiting", queue.waiting()).put("maxSize", queue.maxSize())
                .put("waits", queue.waits()).put("averageWaitMs", queue.averageWaitMs());
        ArrayNode tenantList = root.putArray("tenants");
        for (Tenant tenant : tenants.all()) {
            tenantList.add(tenant(tenant));
        }
        Exchanges.answer(exchange.getMessage(), 200, "application/json",
                mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    }

    /**
     * Every instance known, this one first: {@code state} up or gone (silent for {@value Member#MISSED_BEATS}
     * heartbeats); {@code configMismatch} when the live ones run different keypool.yaml files; {@code aloneSeconds}
     * while this instance cannot reach the Redis it shares state through.
     */
    private ObjectNode cluster() {
        ObjectNode node = mapper.createObjectNode();
        node.put("shared", cluster.shared());
        node.put("aloneSeconds", shared.aloneFor().toMillis() / 1000.0);
        Instant now = clock.instant();
        Set<String> digests = new HashSet<>();
        ArrayNode instances = node.putArray("instances");
        for (Member member : cluster.members()) {
            boolean gone = member.goneAt(now);
            if (!gone) {
                digests.add(String.valueOf(member.configDigest()));
            }
            instances.addObject().put("id", member.id()).put("self", member.id().equals(cluster.instance()))
                    .put("state", gone ? "gone" : "up").put("version", member.version())
                    .put("startedAt", text(member.startedAt())).put("lastHeartbeat", text(member.lastHeartbeat()))
                    .put("inFlight", member.inFlight()).put("configDigest", member.configDigest());
        }
        node.put("configMismatch", digests.size() > 1);
        return node;
    }

    /** A tenant's limits as they stand and its usage, split into its own keys and the shared keys it borrowed. */
    private ObjectNode tenant(Tenant tenant) {
        ObjectNode node = mapper.createObjectNode();
        node.put("name", tenant.name());
        node.put("priority", tenant.priority().configName());
        node.put("borrow", tenant.keyScope().borrow());
        RateLimits limits = tenant.limits().rateLimits();
        ObjectNode rateLimits = node.putObject("rateLimits");
        limits.headers().forEach((header, value) -> rateLimits.put(header.substring("x-ratelimit-".length()), value));
        tenant.maxInFlight().ifPresent(max -> node.put("maxInFlight", max).put("inFlight", tenant.inFlight()));
        node.put("spentTodayUsd", tenant.limits().spentToday());
        node.put("spentThisMonthUsd", tenant.limits().spentThisMonth());
        ObjectNode usage = node.putObject("usage");
        usage.set("own", totals(tenant.usage().own()));
        usage.set("borrowed", totals(tenant.usage().borrowed()));
        return node;
    }

    private ObjectNode totals(TenantUsage.Totals totals) {
        return mapper.createObjectNode().put("requests", totals.requests()).put("promptTokens", totals.promptTokens())
                .put("completionTokens", totals.completionTokens()).put("costUsd", totals.costUsd());
    }

    private ObjectNode channel(Channel channel) {
        ObjectNode node = mapper.createObjectNode();
        node.put("name", channel.name());
        node.putPOJO("models", channel.config().models());
        node.put("strategy", channel.config().strategy());
        node.putPOJO("fallback", channel.config().fallback());
        BreakerFigures f = channel.breaker().figures();
        ObjectNode breaker = node.putObject("breaker");
        breaker.put("state", f.state().name());
        breaker.put("forcedOpen", channel.breaker().forcedOpen());
        breaker.put("trippedBy", f.trippedBy());
        breaker.put("nextAttemptAt", text(f.nextAttemptAt()));
        ArrayNode triggers = breaker.putArray("triggers");
        channel.breaker().settings().triggers().stream().map(BreakerTrigger::configName).sorted().forEach(triggers::add);
        breaker.put("errorRatePercent", f.errorRatePercent());
        breaker.put("callsInWindow", f.callsInWindow());
        breaker.put("averageLatencyMs", f.averageLatencyMs());
        breaker.put("maxKeyConsecutiveFailures", f.maxKeyConsecutiveFailures());
        breaker.put("poolExhaustedCount", f.poolExhaustedCount());
        breaker.put("halfOpenSuccesses", f.halfOpenSuccesses());
        breaker.put("halfOpenProbes", f.halfOpenProbes());
        node.put("costUsd", channel.costs().costUsd());
        ArrayNode usage = node.putArray("usageByModel");
        for (CostLedger.ModelUsage model : channel.costs().byModel()) {
            usage.addObject().put("model", model.model()).put("promptTokens", model.promptTokens())
                    .put("completionTokens", model.completionTokens()).put("costUsd", model.costUsd());
        }
        ArrayNode keys = node.putArray("keys");
        Map<String, KeyConfig> inFile = channel.config().keysByFingerprint();
        for (ApiKey key : channel.pool().keys()) {
            keys.add(key(channel, key, inFile.containsKey(key.fingerprint())));
        }
        return node;
    }

    private ObjectNode key(Channel channel, ApiKey key, boolean inFile) {
        KeyStats s = key.stats();
        ObjectNode node = mapper.createObjectNode();
        node.put("fingerprint", key.fingerprint());
        node.put("label", key.label());
        // "file": a key of keypool.yaml (its weight and limits can be patched, it is removed by editing the file);
        // "api": added at runtime (removed through the API, its weight is the one it was added with)
        node.put("origin", inFile ? "file" : "api");
        node.put("weight", key.weight());
        // whose own key it is; null for a shared key
        node.put("tenant", key.tenant());
        node.put("state", channel.pool().stateOf(key).name());
        node.put("health", channel.pool().healthOf(key).displayName());
        node.put("draining", key.draining());
        node.put("effectiveWeight", channel.pool().selection().effectiveWeight(key));
        // why the effective weight may be below the weight (design §8): warming up, rolling out, retiring
        node.put("warmingUntil", text(channel.pool().warmingUntil(key).orElse(null)));
        node.put("rolloutUntil", text(channel.pool().rolloutUntil(key).orElse(null)));
        node.put("retiring", channel.pool().retiring(key));
        node.put("coolingUntil", text(channel.pool().coolingUntil(key).orElse(null)));
        node.put("inFlight", s.inFlight());
        node.put("callCount", s.callCount());
        node.put("successCount", s.successCount());
        node.put("failureCount", s.failureCount());
        node.put("rateLimitCount", s.rateLimitCount());
        node.put("consecutiveFailures", s.consecutiveFailures());
        node.put("promptTokens", s.promptTokens());
        node.put("completionTokens", s.completionTokens());
        node.put("costUsd", channel.costs().costUsd(key.fingerprint()));
        node.put("averageLatencyMs", s.averageLatencyMs());
        node.put("maxLatencyMs", s.maxLatencyMs());
        node.put("windowCalls", s.windowCalls());
        node.put("windowFailures", s.windowFailures());
        ArrayNode quota = node.putArray("quota");
        for (KeyQuota.Use use : channel.pool().quotaOf(key).use()) {
            ObjectNode window = quota.addObject();
            window.put("window", use.window().configName());
            window.put("used", use.used());
            window.put("limit", use.limit());
            if (use.resetsAt() != null) {
                window.put("resetsAt", use.resetsAt());
            }
        }
        return node;
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
