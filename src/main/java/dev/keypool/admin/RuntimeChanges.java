package dev.keypool.admin;

import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.breaker.BreakerState;
import dev.keypool.config.ChannelConfig;
import dev.keypool.config.KeyConfig;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.ChannelAssembly;
import dev.keypool.pool.ApiKey;
import dev.keypool.quota.QuotaLimits;

/**
 * What operators changed through the admin API that keypool.yaml does not say (design §9): keys disabled or drained,
 * weights and limits patched, breakers forced OPEN. They are laid over the file's values at startup and after every
 * reload ({@link #applyTo}), and kept in {@code state.dir} by fingerprint ({@link #toJson}, {@link #fromJson}), so they
 * survive a restart; keypool.yaml stays the source of keys. Thread-safe.
 */
public final class RuntimeChanges implements ChannelAssembly.Tuning {

    /** An operator's hold on a key: out of rotation (DISABLED), or no new calls (DRAINING). */
    public enum KeyHold { DISABLED, DRAINING }

    private static final int VERSION = 1;

    // by key id (channel/fingerprint)
    private final Map<String, KeyHold> holds = new LinkedHashMap<>();
    private final Map<String, Map<String, Long>> tunings = new LinkedHashMap<>();
    // by channel: the reason of a forced OPEN
    private final Map<String, String> forcedOpen = new LinkedHashMap<>();

    /** How changes name a key: its channel and fingerprint (the quota state file's {@code keyId}). */
    public static String keyId(String channel, String fingerprint) {
        return channel + "/" + fingerprint;
    }

    public synchronized void enabled(String channel, String fingerprint) {
        holds.remove(keyId(channel, fingerprint));
    }

    public synchronized void held(String channel, String fingerprint, KeyHold hold) {
        holds.put(keyId(channel, fingerprint), hold);
    }

    /** The patch merged into the key's earlier ones: null gives a field back to the file. */
    public synchronized void patched(String channel, String fingerprint, KeyPatch patch) {
        Map<String, Long> tuning = tunings.computeIfAbsent(keyId(channel, fingerprint), id -> new LinkedHashMap<>());
        patch.values().forEach((field, value) -> {
            if (value == null) {
                tuning.remove(field);
            } else {
                tuning.put(field, value);
            }
        });
        if (tuning.isEmpty()) {
            tunings.remove(keyId(channel, fingerprint));
        }
    }

    /** A breaker forced OPEN stays so across restarts; CLOSED and HALF_OPEN are moments, not holds. */
    public synchronized void breakerForced(String channel, BreakerState state, String reason) {
        if (state == BreakerState.OPEN) {
            forcedOpen.put(channel, reason);
        } else {
            forcedOpen.remove(channel);
        }
    }

    public synchronized Optional<KeyHold> hold(String channel, String fingerprint) {
        return Optional.ofNullable(holds.get(keyId(channel, fingerprint)));
    }

    /** The weight a key has now: the operator's, else the file's. */
    @Override
    public synchronized int weight(ChannelConfig channel, KeyConfig key) {
        Long tuned = tuning(channel.name(), key).get("weight");
        return tuned == null ? key.weight() : tuned.intValue();
    }

    /** The limits a key has now: each the operator's (0 = none), else the file's. */
    @Override
    public synchronized QuotaLimits limits(ChannelConfig channel, KeyConfig key) {
        Map<String, Long> tuning = tuning(channel.name(), key);
        QuotaLimits file = key.limits();
        return new QuotaLimits(limit(tuning, "rpm", file.rpm()), limit(tuning, "tpm", file.tpm()),
                limit(tuning, "rpd", file.rpd()), limit(tuning, "tpd", file.tpd()), limit(tuning, "tpmMonth", file.tpmMonth()));
    }

    /**
     * Lays these changes over a channel made or reloaded from the file: each of its keys gets its weight and limits,
     * a held key is disabled or drained again, a breaker forced OPEN is forced again. Changes of keys and channels the
     * file no longer has are kept, for when they come back.
     */
    public synchronized void applyTo(Channel channel) {
        for (KeyConfig config : channel.config().keys()) {
            String fingerprint = config.fingerprint();
            Optional<ApiKey> key = channel.pool().find(fingerprint);
            if (key.isEmpty()) {
                continue;
            }
            channel.pool().controls().tune(fingerprint, weight(channel.config(), config), limits(channel.config(), config));
            KeyHold hold = holds.get(keyId(channel.name(), fingerprint));
            if (hold == KeyHold.DISABLED) {
                channel.pool().controls().disable(fingerprint);
            } else if (hold == KeyHold.DRAINING) {
                channel.pool().controls().drain(fingerprint);
            }
        }
        String reason = forcedOpen.get(channel.name());
        if (reason != null) {
            channel.breaker().forceOpen(reason);
        }
    }

    /**
     * Takes over the changes another instance made (they replace these: an instance keeps the changes of all) and lays
     * them over {@code channels} as {@link #applyTo} does; a key held here that {@code newer} no longer holds is
     * enabled again, as the operator did on the other instance. A breaker no longer forced OPEN is left as it is: the
     * breakers tell each other of their states themselves.
     */
    public void takeOver(RuntimeChanges newer, Collection<Channel> channels) {
        Set<String> released;
        synchronized (this) {
            synchronized (newer) {
                released = new HashSet<>(holds.keySet());
                released.removeAll(newer.holds.keySet());
                holds.clear();
                holds.putAll(newer.holds);
                tunings.clear();
                newer.tunings.forEach((id, tuning) -> tunings.put(id, new LinkedHashMap<>(tuning)));
                forcedOpen.clear();
                forcedOpen.putAll(newer.forcedOpen);
            }
        }
        for (Channel channel : channels) {
            applyTo(channel);
            for (ApiKey key : channel.pool().keys()) {
                if (released.contains(keyId(channel.name(), key.fingerprint()))) {
                    channel.pool().controls().enable(key.fingerprint());
                }
            }
        }
    }

    /** {@code {"version":1,"keys":{"zhipu/3f2a…":{"hold":"DISABLED","weight":3}},"breakers":{"zhipu":{"state":"OPEN","reason":"…"}}}} */
    public synchronized ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode root = mapper.createObjectNode();
        root.put("version", VERSION);
        ObjectNode keys = root.putObject("keys");
        holds.forEach((id, hold) -> keys.putObject(id).put("hold", hold.name()));
        tunings.forEach((id, tuning) -> {
            ObjectNode key = keys.has(id) ? (ObjectNode) keys.get(id) : keys.putObject(id);
            tuning.forEach(key::put);
        });
        ObjectNode breakers = root.putObject("breakers");
        forcedOpen.forEach((channel, reason) -> breakers.putObject(channel).put("state", BreakerState.OPEN.name())
                .put("reason", reason));
        return root;
    }

    /**
     * The changes a file of {@link #toJson} holds; entries it does not understand are skipped.
     *
     * @throws IllegalArgumentException when it is not such a file at all
     */
    public static RuntimeChanges fromJson(JsonNode root) {
        if (root == null || root.path("version").asInt() != VERSION || !root.path("keys").isObject()) {
            throw new IllegalArgumentException("not a version " + VERSION + " admin state file");
        }
        RuntimeChanges changes = new RuntimeChanges();
        for (Iterator<Map.Entry<String, JsonNode>> keys = root.path("keys").fields(); keys.hasNext(); ) {
            Map.Entry<String, JsonNode> key = keys.next();
            JsonNode hold = key.getValue().path("hold");
            if (hold.isTextual()) {
                try {
                    changes.holds.put(key.getKey(), KeyHold.valueOf(hold.asText()));
                } catch (IllegalArgumentException unknown) {
                    // skipped: one bad entry costs its own change only
                }
            }
            Map<String, Long> tuning = new LinkedHashMap<>();
            KeyPatch.FIELDS.forEach(field -> {
                JsonNode value = key.getValue().path(field);
                if (value.isIntegralNumber() && value.asLong() >= (field.equals("weight") ? 1 : 0)) {
                    tuning.put(field, value.asLong());
                }
            });
            if (!tuning.isEmpty()) {
                changes.tunings.put(key.getKey(), tuning);
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> breakers = root.path("breakers").fields(); breakers.hasNext(); ) {
            Map.Entry<String, JsonNode> breaker = breakers.next();
            if (BreakerState.OPEN.name().equals(breaker.getValue().path("state").asText())) {
                changes.forcedOpen.put(breaker.getKey(), breaker.getValue().path("reason").asText("restored"));
            }
        }
        return changes;
    }

    private Map<String, Long> tuning(String channel, KeyConfig key) {
        return tunings.getOrDefault(keyId(channel, key.fingerprint()), Map.of());
    }

    private static Long limit(Map<String, Long> tuning, String field, Long file) {
        if (!tuning.containsKey(field)) {
            return file;
        }
        long value = tuning.get(field);
        return value == 0 ? null : value;
    }
}
