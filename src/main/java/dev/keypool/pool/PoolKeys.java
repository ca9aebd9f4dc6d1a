package dev.keypool.pool;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.keypool.quota.KeyQuota;

/**
 * The keys of one pool, each with its quota and its ramp: those configured now, and those a reload removed while
 * calls were in flight on them (still the pool's until those calls are recorded).
 */
final class PoolKeys {

    private final PoolSettings settings;
    // replaced as a whole by a reload (byFingerprint before keys, so that a listed key is always found); read once per use
    private volatile List<ApiKey> keys;
    private volatile Map<String, ApiKey> byFingerprint;
    private final Map<String, ApiKey> removed = new ConcurrentHashMap<>();
    // ApiKey has identity equality: keyed by the object, as the IdentityHashMap it was
    private final Map<ApiKey, KeyQuota> quotas = new ConcurrentHashMap<>();
    /** Each key's warm-up, rollout and retiring; ApiKey has identity equality. */
    private final Map<ApiKey, KeyRamp> ramps = new ConcurrentHashMap<>();

    /** @param settings the pool's settings as made: clock, quota zone, shared ledgers and warm-up never reload */
    PoolKeys(PoolSettings settings, List<ApiKey> configured) {
        this.settings = settings;
        Map<String, ApiKey> index = index(configured);
        index.values().forEach(this::join);
        this.byFingerprint = Collections.unmodifiableMap(index);
        this.keys = List.copyOf(configured);
        // keys present when the pool is made are in service already: only a rollout ramps them
        this.keys.forEach(this::ramp);
    }

    /** The keys in configuration order. */
    List<ApiKey> all() {
        return keys;
    }

    /** The configured key of that fingerprint, or null. */
    ApiKey get(String fingerprint) {
        return byFingerprint.get(fingerprint);
    }

    Optional<ApiKey> find(String fingerprint) {
        return Optional.ofNullable(byFingerprint.get(fingerprint));
    }

    /** The key itself must be ours: its counters and state live in the object. */
    ApiKey owned(ApiKey key) {
        Objects.requireNonNull(key, "key");
        if (byFingerprint.get(key.fingerprint()) != key && removed.get(key.fingerprint()) != key) {
            throw new IllegalArgumentException("Key " + key.fingerprint() + " is not in channel " + settings.channel());
        }
        return key;
    }

    /** @throws IllegalArgumentException when no key of this channel has that fingerprint */
    ApiKey require(String fingerprint) {
        ApiKey key = byFingerprint.get(fingerprint);
        if (key == null) {
            throw new IllegalArgumentException("No key " + fingerprint + " in channel " + settings.channel());
        }
        return key;
    }

    KeyQuota quota(ApiKey key) {
        return quotas.get(key);
    }

    /** The key's ramp, made when the key is first seen: its rollout runs from then. */
    KeyRamp ramp(ApiKey key) {
        KeyRamp ramp = ramps.get(key);
        // looked up first: the function computeIfAbsent takes captures this, one object on every pick of every key
        return ramp != null ? ramp
                : ramps.computeIfAbsent(key, k -> new KeyRamp(settings.warmup(), k.rampPlan(), settings.clock().instant()));
    }

    /** What {@link #replace} did, by fingerprint; the removed keys drain. */
    record Replaced(List<String> kept, List<String> added, List<String> removed) {
    }

    /**
     * The keys of a reloaded keypool.yaml. A key whose fingerprint stays keeps its state, counters, quota use and
     * drain (its label, weight, limits, tenant and rollout/retiring plan are the new ones); a new key joins; a removed
     * key drains and stays known until its calls in flight are recorded, and one that comes back stops draining.
     */
    synchronized Replaced replace(List<ApiKey> configured) {
        Map<String, ApiKey> wanted = index(configured);
        Map<String, ApiKey> before = byFingerprint;
        List<String> kept = new ArrayList<>();
        List<String> added = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        Map<String, ApiKey> next = new LinkedHashMap<>();
        for (ApiKey fresh : wanted.values()) {
            ApiKey old = before.get(fresh.fingerprint());
            boolean back = false;
            if (old == null) {
                old = removed.remove(fresh.fingerprint());   // removed by an earlier reload, back again
                back = old != null;
            }
            if (old != null) {
                old.retune(fresh.label(), fresh.weight(), fresh.limits());
                if (old.reassign(fresh.tenant(), fresh.rampPlan())) {
                    ramps.remove(old);   // made anew from the new plan on its next use: a rollout starts from now
                }
                quotas.get(old).changeLimits(fresh.limits());
                if (back) {
                    // it drained because a reload removed it; a kept key's drain is an operator's (or another
                    // instance's), which requests planned while this reload runs must still see
                    old.drain(false);
                }
                next.put(old.fingerprint(), old);
                kept.add(old.fingerprint());
            } else {
                join(fresh);
                next.put(fresh.fingerprint(), fresh);
                added.add(fresh.fingerprint());
            }
        }
        for (ApiKey old : before.values()) {
            if (!next.containsKey(old.fingerprint())) {
                old.drain(true);
                removed.put(old.fingerprint(), old);
                gone.add(old.fingerprint());
            }
        }
        byFingerprint = Collections.unmodifiableMap(next);
        keys = List.copyOf(next.values());
        return new Replaced(kept, added, gone);
    }

    /**
     * A key that joins without a reload; one removed while calls were in flight on it comes back with its state.
     *
     * @return the key now in the pool, or null when the pool has one of that fingerprint already
     */
    synchronized ApiKey add(ApiKey key) {
        Objects.requireNonNull(key, "key");
        if (byFingerprint.containsKey(key.fingerprint())) {
            return null;
        }
        ApiKey joined = removed.remove(key.fingerprint());
        if (joined != null) {
            joined.drain(false);
        } else {
            join(key);
            joined = key;
        }
        Map<String, ApiKey> next = new LinkedHashMap<>(byFingerprint);
        next.put(joined.fingerprint(), joined);
        byFingerprint = Collections.unmodifiableMap(next);
        keys = List.copyOf(next.values());
        return joined;
    }

    /**
     * A key that leaves without a reload: it drains and stays known until its calls in flight are recorded.
     *
     * @return the key, or null when the pool has none of that fingerprint
     */
    synchronized ApiKey remove(String fingerprint) {
        ApiKey key = byFingerprint.get(fingerprint);
        if (key == null) {
            return null;
        }
        key.drain(true);
        // in removed before it leaves the index, so that a call in flight on it always finds it
        removed.put(fingerprint, key);
        Map<String, ApiKey> next = new LinkedHashMap<>(byFingerprint);
        next.remove(fingerprint);
        keys = List.copyOf(next.values());
        byFingerprint = Collections.unmodifiableMap(next);
        return key;
    }

    /** A key removed by a reload, still known while calls are in flight on it; null when let go. */
    ApiKey removed(String fingerprint) {
        return removed.get(fingerprint);
    }

    /** Removed keys with no call left in flight are let go (their quota with them). */
    void forgetIdleRemovedKeys() {
        removed.values().removeIf(key -> {
            if (key.inFlight() > 0) {
                return false;
            }
            quotas.remove(key);
            return true;
        });
    }

    private Map<String, ApiKey> index(List<ApiKey> configured) {
        Objects.requireNonNull(configured, "keys");
        Map<String, ApiKey> index = new LinkedHashMap<>();
        for (ApiKey key : configured) {
            Objects.requireNonNull(key, "key");
            if (index.putIfAbsent(key.fingerprint(), key) != null) {
                throw new IllegalArgumentException("Key " + key.fingerprint() + " appears twice in channel " + settings.channel());
            }
        }
        return index;
    }

    /** A key enters the pool: its counters follow the pool's clock, and its quota is kept here. */
    private void join(ApiKey key) {
        key.useClock(settings.clock());
        quotas.put(key, new KeyQuota("Key " + key.fingerprint() + "(" + settings.channel() + ")", key.limits(),
                settings.quotaZone(), settings.clock(), settings.ledgers().forKey(settings.channel(), key.fingerprint())));
    }
}
