package dev.keypool.pool;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import dev.keypool.events.StateListener;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys of one channel: hands out usable keys and turns the outcome of each upstream call into counters and
 * state changes (429 → COOLING, failures in a row or rejected credentials → DISABLED). Thread-safe; every state
 * change is a single atomic transition on the key, and the log line is written only by the caller that made it.
 */
public final class KeyPool {

    private static final Logger LOG = LoggerFactory.getLogger(KeyPool.class);

    // far beyond any real Retry-After, and keeps now + wait clear of Instant overflow
    private static final Duration LONGEST_COOLING = Duration.ofDays(365);

    private final String channel;
    private final List<ApiKey> keys;
    private final Map<String, ApiKey> byFingerprint;
    private final SelectionStrategy strategy;
    private final Duration cooldown;
    private final int disableAfter;
    private final Clock clock;
    private final StateListener listener;

    /**
     * @param keys         in configuration order, distinct secrets; a key's sliding window runs on the clock of the
     *                     first pool it joins
     * @param cooldown     how long a key cools after a 429 without Retry-After
     * @param disableAfter failures in a row (5xx, timeouts, connection errors) that disable a key, at least 1
     * @param listener     hears every state change of the pool's keys
     */
    public KeyPool(String channel, List<ApiKey> keys, SelectionStrategy strategy,
                   Duration cooldown, int disableAfter, Clock clock, StateListener listener) {
        if (channel == null || channel.isBlank()) {
            throw new IllegalArgumentException("channel must not be blank");
        }
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(cooldown, "cooldown");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(listener, "listener");
        if (cooldown.isNegative()) {
            throw new IllegalArgumentException("cooldown of channel " + channel + " must not be negative");
        }
        if (disableAfter < 1) {
            throw new IllegalArgumentException("disableAfter of channel " + channel + " must be at least 1, was " + disableAfter);
        }
        Map<String, ApiKey> index = new LinkedHashMap<>();
        for (ApiKey key : keys) {
            Objects.requireNonNull(key, "key");
            if (index.putIfAbsent(key.fingerprint(), key) != null) {
                throw new IllegalArgumentException("Key " + key.fingerprint() + " appears twice in channel " + channel);
            }
            key.useClock(clock);
        }
        this.channel = channel;
        this.keys = List.copyOf(keys);
        this.byFingerprint = Collections.unmodifiableMap(index);
        this.strategy = strategy;
        this.cooldown = cooldown;
        this.disableAfter = disableAfter;
        this.clock = clock;
        this.listener = listener;
    }

    public String channel() {
        return channel;
    }

    /** The keys in configuration order. */
    public List<ApiKey> keys() {
        return keys;
    }

    public Optional<ApiKey> find(String fingerprint) {
        return Optional.ofNullable(byFingerprint.get(fingerprint));
    }

    /** The key's state now: a COOLING key whose deadline has been reached becomes ACTIVE here. */
    public KeyState stateOf(ApiKey key) {
        return refresh(owned(key)).state();
    }

    /** The key's cooling deadline now; empty unless it is COOLING. */
    public Optional<Instant> coolingUntil(ApiKey key) {
        return Optional.ofNullable(refresh(owned(key)).coolingUntil());
    }

    /**
     * A usable (ACTIVE after the clock check) key not in {@code excludedFingerprints} (null means none), chosen by
     * the strategy; its in-flight count is incremented. Report the call's outcome with exactly one record method.
     */
    public Optional<ApiKey> acquire(Set<String> excludedFingerprints) {
        Set<String> excluded = orNone(excludedFingerprints);
        Optional<ApiKey> picked = strategy.pick(keys, key -> usable(key, excluded), this::effectiveWeight);
        picked.ifPresent(key -> key.counters().acquired());
        return picked;
    }

    /**
     * The share of traffic a key gets now, relative to the others (SPEC §8): its configured weight, times the factors
     * that quotas (near a limit) and warm-up or rollout (entering service) will multiply in here.
     */
    public double effectiveWeight(ApiKey key) {
        return key.weight();
    }

    /** Whether {@link #acquire} would find a key right now; changes nothing but expired cooling states. */
    public boolean hasUsableKey(Set<String> excludedFingerprints) {
        Set<String> excluded = orNone(excludedFingerprints);
        return keys.stream().anyMatch(key -> usable(key, excluded));
    }

    public boolean hasActiveKey() {
        return hasUsableKey(Set.of());
    }

    /** A streamed answer sent its first byte; the call stays in flight until its outcome is recorded. */
    public void recordFirstByte(ApiKey key, Duration timeToFirstByte) {
        owned(key).counters().firstByte(millis(timeToFirstByte));
    }

    /** A 2xx: resets the failures in a row. */
    public void recordSuccess(ApiKey key, Duration latency, long promptTokens, long completionTokens) {
        owned(key).counters().success(millis(latency), promptTokens, completionTokens);
    }

    /**
     * A 429: the key cools until now + retryAfter (or the pool's cooldown), or longer if it already cools longer.
     * Leaves the failures in a row alone: being rate limited says nothing about the key being broken.
     */
    public void recordRateLimited(ApiKey key, Duration latency, Optional<Duration> retryAfter) {
        ApiKey owned = owned(key);
        owned.counters().rateLimited(millis(latency));
        Instant now = clock.instant();
        Instant deadline = now.plus(coolingTime(retryAfter));
        transition(owned, current -> current.coolUntil(deadline), after -> after.state() == KeyState.COOLING
                ? "cooling " + Duration.between(now, after.coolingUntil()).toSeconds() + "s after 429" : null);
    }

    /**
     * A 5xx, timeout or connection error; {@code cause} such as "503", "timeout", "connection refused".
     *
     * @return the key's failures in a row, this one included
     */
    public int recordFailure(ApiKey key, Duration latency, String cause) {
        ApiKey owned = owned(key);
        int inARow = owned.counters().failure(millis(latency));
        if (inARow >= disableAfter) {
            transition(owned, current -> KeyAvailability.DISABLED,
                    after -> "disabled after " + inARow + " consecutive failures (last: " + owned.redact(cause) + ")");
        }
        return inARow;
    }

    /** A 401/402/403: the upstream refuses this key, so it is disabled at once. */
    public void recordRejected(ApiKey key, Duration latency, int status) {
        ApiKey owned = owned(key);
        owned.counters().rejected(millis(latency));
        transition(owned, current -> KeyAvailability.DISABLED, after -> "disabled after " + status + " from upstream");
    }

    /** A 400/404/413/422 that goes back to the client, or a client that left: the key was not at fault. */
    public void recordClientError(ApiKey key, Duration latency) {
        owned(key).counters().clientError();
    }

    /** The earliest cooling deadline among COOLING keys; empty when none is cooling. */
    public Optional<Instant> soonestRecovery() {
        return keys.stream()
                .map(this::refresh)
                .filter(availability -> availability.state() == KeyState.COOLING)
                .map(KeyAvailability::coolingUntil)
                .min(Comparator.naturalOrder());
    }

    /**
     * Operator: back to ACTIVE with a clean failure streak, whatever the state was.
     *
     * @throws IllegalArgumentException when no key of this channel has that fingerprint
     */
    public void enable(String fingerprint) {
        ApiKey key = require(fingerprint);
        key.counters().resetConsecutiveFailures();
        transition(key, current -> KeyAvailability.ACTIVE, after -> "enabled by operator, ACTIVE");
    }

    /**
     * Operator: out of rotation until enabled again.
     *
     * @throws IllegalArgumentException when no key of this channel has that fingerprint
     */
    public void disable(String fingerprint) {
        transition(require(fingerprint), current -> KeyAvailability.DISABLED, after -> "disabled by operator");
    }

    @Override
    public String toString() {
        return "KeyPool[" + channel + ", " + keys.size() + " keys, " + strategy + "]";
    }

    private boolean usable(ApiKey key, Set<String> excluded) {
        return !excluded.contains(key.fingerprint()) && refresh(key).state() == KeyState.ACTIVE;
    }

    /** Applies the clock to the key's cooling deadline and returns its availability now. */
    private KeyAvailability refresh(ApiKey key) {
        Instant now = clock.instant();
        return transition(key, current -> current.expireCooling(now), after -> "cooled down, ACTIVE");
    }

    /**
     * The one way a key's state changes: applied atomically; when it changed anything, one log line (WARN for
     * DISABLED, else INFO) and one event, written by the caller whose change it was.
     *
     * @param message what happened, given the availability now in place; null for a change not worth a line
     * @return the availability now in place
     */
    private KeyAvailability transition(ApiKey key, UnaryOperator<KeyAvailability> change,
                                       Function<KeyAvailability, String> message) {
        KeyAvailability.Change done = key.updateAvailability(change);
        if (!done.changed()) {
            return done.after();
        }
        String text = message.apply(done.after());
        if (text != null) {
            String line = "Key " + key.fingerprint() + "(" + channel + ") " + text;
            if (done.after().state() == KeyState.DISABLED) {
                LOG.warn(line);
            } else {
                LOG.info(line);
            }
            listener.stateChanged(new KeyStateChange(clock.instant(), channel, key.fingerprint(),
                    done.before().state(), done.after().state(), line));
        }
        return done.after();
    }

    private Duration coolingTime(Optional<Duration> retryAfter) {
        Duration wait = retryAfter == null ? cooldown : retryAfter.orElse(cooldown);
        if (wait.isNegative()) {
            return Duration.ZERO;
        }
        return wait.compareTo(LONGEST_COOLING) > 0 ? LONGEST_COOLING : wait;
    }

    /** The key itself must be ours: its counters and state live in the object. */
    private ApiKey owned(ApiKey key) {
        Objects.requireNonNull(key, "key");
        if (byFingerprint.get(key.fingerprint()) != key) {
            throw new IllegalArgumentException("Key " + key.fingerprint() + " is not in channel " + channel);
        }
        return key;
    }

    private ApiKey require(String fingerprint) {
        ApiKey key = byFingerprint.get(fingerprint);
        if (key == null) {
            throw new IllegalArgumentException("No key " + fingerprint + " in channel " + channel);
        }
        return key;
    }

    private static Set<String> orNone(Set<String> excludedFingerprints) {
        return excludedFingerprints == null ? Set.of() : excludedFingerprints;
    }

    private static long millis(Duration latency) {
        return latency == null ? 0 : Math.max(0, latency.toMillis());
    }
}
