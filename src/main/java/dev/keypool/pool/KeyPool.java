package dev.keypool.pool;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import dev.keypool.events.StateListener;
import dev.keypool.quota.CompanionTake;
import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.QuotaLedger;
import dev.keypool.quota.QuotaLimits;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys of one channel: hands out usable keys and turns the outcome of each upstream call into counters and
 * state changes (429 → COOLING, failures in a row or rejected credentials → DISABLED). Thread-safe; every state
 * change is a single atomic transition on the key, and the log line is written only by the caller that made it.
 * A reloaded keypool.yaml changes the keys in place ({@link #reload}); operators drain keys and change their weight
 * and limits live ({@link #drain}, {@link #tune}).
 */
public final class KeyPool {

    private static final Logger LOG = LoggerFactory.getLogger(KeyPool.class);

    // far beyond any real Retry-After, and keeps now + wait clear of Instant overflow
    private static final Duration LONGEST_COOLING = Duration.ofDays(365);

    private final String channel;
    // replaced as a whole by a reload (byFingerprint before keys, so that a listed key is always found); read once per use
    private volatile List<ApiKey> keys;
    private volatile Map<String, ApiKey> byFingerprint;
    /** Keys a reload removed while calls were in flight on them: still ours until those calls are recorded. */
    private final Map<String, ApiKey> removed = new ConcurrentHashMap<>();
    private volatile SelectionStrategy strategy;
    private volatile Duration cooldown;
    private volatile int disableAfter;
    private final ZoneId quotaZone;
    private final Clock clock;
    private final StateListener listener;
    // ApiKey has identity equality: keyed by the object, as the IdentityHashMap it was
    private final Map<ApiKey, KeyQuota> quotas = new ConcurrentHashMap<>();
    /** Each key's warm-up, rollout and retiring; ApiKey has identity equality. */
    private final Map<ApiKey, KeyRamp> ramps = new ConcurrentHashMap<>();
    private final Duration warmup;
    /** Where each key's use is also counted when gateway instances share their quotas. */
    private final QuotaLedger.Factory ledgers;
    /** Error rate (percent, last 60 s) above which a key shows as degraded: the channel breaker's errorRateThreshold. */
    private final double degradedErrorRatePercent;
    /** Keys an operator disabled: a successful probe does not bring them back, only the operator does. */
    private final Set<String> disabledByOperator = ConcurrentHashMap.newKeySet();

    /**
     * @param keys         in configuration order, distinct secrets; a key's sliding window runs on the clock of the
     *                     first pool it joins
     * @param cooldown     how long a key cools after a 429 without Retry-After
     * @param disableAfter failures in a row (5xx, timeouts, connection errors) that disable a key, at least 1
     * @param quotaZone    where the days and months of the keys' quotas begin
     * @param listener     hears every state change of the pool's keys
     */
    public KeyPool(String channel, List<ApiKey> keys, SelectionStrategy strategy,
                   Duration cooldown, int disableAfter, ZoneId quotaZone, Clock clock, StateListener listener) {
        this(channel, keys, strategy, cooldown, disableAfter, quotaZone, clock, listener, Duration.ZERO, 100);
    }

    /**
     * @param warmup                   how long a key coming back into service ramps up to its weight (zero: at once)
     * @param degradedErrorRatePercent a key failing more than this share of its calls of the last 60 s is degraded
     */
    public KeyPool(String channel, List<ApiKey> keys, SelectionStrategy strategy, Duration cooldown, int disableAfter,
                   ZoneId quotaZone, Clock clock, StateListener listener, Duration warmup, double degradedErrorRatePercent) {
        this(channel, keys, strategy, cooldown, disableAfter, quotaZone, clock, listener, warmup, degradedErrorRatePercent,
                QuotaLedger.Factory.LOCAL);
    }

    /** @param ledgers the count each key's quota shares with other gateway instances (design §11) */
    public KeyPool(String channel, List<ApiKey> keys, SelectionStrategy strategy, Duration cooldown, int disableAfter,
                   ZoneId quotaZone, Clock clock, StateListener listener, Duration warmup, double degradedErrorRatePercent,
                   QuotaLedger.Factory ledgers) {
        if (channel == null || channel.isBlank()) {
            throw new IllegalArgumentException("channel must not be blank");
        }
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(cooldown, "cooldown");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(listener, "listener");
        checkSettings(channel, cooldown, disableAfter);
        this.channel = channel;
        this.quotaZone = Objects.requireNonNull(quotaZone, "quotaZone");
        this.clock = clock;
        this.listener = listener;
        this.degradedErrorRatePercent = degradedErrorRatePercent;
        this.warmup = Objects.requireNonNull(warmup, "warmup");
        this.ledgers = Objects.requireNonNull(ledgers, "ledgers");
        Map<String, ApiKey> index = index(keys);
        index.values().forEach(this::join);
        this.byFingerprint = Collections.unmodifiableMap(index);
        this.keys = List.copyOf(keys);
        this.strategy = strategy;
        this.cooldown = cooldown;
        this.disableAfter = disableAfter;
        // keys present when the pool is made are in service already: only a rollout ramps them
        this.keys.forEach(this::ramp);
    }

    private static void checkSettings(String channel, Duration cooldown, int disableAfter) {
        if (cooldown.isNegative()) {
            throw new IllegalArgumentException("cooldown of channel " + channel + " must not be negative");
        }
        if (disableAfter < 1) {
            throw new IllegalArgumentException("disableAfter of channel " + channel + " must be at least 1, was " + disableAfter);
        }
    }

    private Map<String, ApiKey> index(List<ApiKey> keys) {
        Map<String, ApiKey> index = new LinkedHashMap<>();
        for (ApiKey key : keys) {
            Objects.requireNonNull(key, "key");
            if (index.putIfAbsent(key.fingerprint(), key) != null) {
                throw new IllegalArgumentException("Key " + key.fingerprint() + " appears twice in channel " + channel);
            }
        }
        return index;
    }

    /** A key enters the pool: its counters follow the pool's clock, and its quota is kept here. */
    private void join(ApiKey key) {
        key.useClock(clock);
        quotas.put(key, new KeyQuota("Key " + key.fingerprint() + "(" + channel + ")", key.limits(), quotaZone, clock,
                ledgers.forKey(channel, key.fingerprint())));
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

    /** A key handed out for one call, and what the call reserved of its quota (null for a key without limits). */
    public record Lease(ApiKey key, KeyQuota.Reservation reservation) {
    }

    /** {@link #acquire(KeyScope, Set, LongSupplier)} of the shared keys for a call whose tokens do not matter. */
    public Optional<ApiKey> acquire(Set<String> excludedFingerprints) {
        return acquire(KeyScope.SHARED, excludedFingerprints, () -> 0).map(Lease::key);
    }

    /** {@link #acquire(KeyScope, Set, LongSupplier)} of the shared keys. */
    public Optional<Lease> acquire(Set<String> excludedFingerprints, LongSupplier tokens) {
        return acquire(KeyScope.SHARED, excludedFingerprints, tokens);
    }

    /**
     * A usable (ACTIVE after the clock check) key in {@code scope} and not in {@code excludedFingerprints} (null
     * means none) with quota room for one call of {@code tokens}, chosen by the strategy by effective weight; the
     * call's quota is reserved and the key's in-flight count incremented. A tenant's own keys are tried before the
     * shared ones; within each, keys past 95 % of a window are a reserve, used only when no other key has room.
     * Report the call's outcome with exactly one record method and {@link #settle} its reservation.
     *
     * @param tokens the call's estimated tokens, asked only if a key counts tokens
     */
    public Optional<Lease> acquire(KeyScope scope, Set<String> excludedFingerprints, LongSupplier tokens) {
        return acquire(scope, excludedFingerprints, tokens, null);
    }

    /**
     * {@link #acquire(KeyScope, Set, LongSupplier)} for a request whose {@code companion} (its tenant's admission; null
     * for none) goes with its key's reservation: decided in the same call to the shared count when the key is
     * limited there, else alone before the lease is handed out. Empty, with no key reserved, once it is refused.
     */
    public Optional<Lease> acquire(KeyScope scope, Set<String> excludedFingerprints, LongSupplier tokens,
                                   CompanionTake companion) {
        return acquire(scope, excludedFingerprints, tokens, false, companion);
    }

    /**
     * {@link #acquire(KeyScope, Set, LongSupplier)} for a batch line (design §12): only a key whose every window stays
     * at or below the reserve line (95 %) with this call; never the reserve, which is left to interactive requests.
     */
    public Optional<Lease> acquireBelowSoftLimit(KeyScope scope, Set<String> excludedFingerprints, LongSupplier tokens,
                                                CompanionTake companion) {
        return acquire(scope, excludedFingerprints, tokens, true, companion);
    }

    private Optional<Lease> acquire(KeyScope scope, Set<String> excludedFingerprints, LongSupplier tokens, boolean belowSoftLimit,
                                    CompanionTake companion) {
        Set<String> excluded = orNone(excludedFingerprints);
        long[] estimate = {-1};
        LongSupplier once = () -> estimate[0] >= 0 ? estimate[0] : (estimate[0] = tokens.getAsLong());
        for (KeyScope tier : scope.tiers()) {
            for (boolean reserve : belowSoftLimit ? new boolean[] {false} : new boolean[] {false, true}) {
                Set<ApiKey> raced = new HashSet<>();
                while (true) {
                    Optional<ApiKey> picked = strategy.pick(keys,
                            key -> tier.admits(key) && !raced.contains(key) && usable(key, excluded)
                                    && (belowSoftLimit ? fitsBelowSoftLimit(key, once) : fits(key, once, reserve)),
                            reserve ? ApiKey::weight : this::effectiveWeight);
                    if (picked.isEmpty()) {
                        break;
                    }
                    ApiKey key = picked.get();
                    KeyQuota quota = quotas.get(key);
                    if (!quota.limited()) {
                        if (companion != null && !companion.decideAlone()) {
                            return Optional.empty();
                        }
                        key.counters().acquired();
                        return Optional.of(new Lease(key, null));
                    }
                    Optional<KeyQuota.Reservation> reservation = belowSoftLimit
                            ? quota.tryReserveBelowSoftLimit(tokensFor(quota, once), companion)
                            : quota.tryReserve(tokensFor(quota, once), reserve, companion);
                    if (reservation.isPresent()) {
                        // undecided still when the shared count could not carry it (alone, or out of reach)
                        if (companion != null && !companion.decideAlone()) {
                            quota.cancel(reservation.get());
                            return Optional.empty();
                        }
                        key.counters().acquired();
                        return Optional.of(new Lease(key, reservation.get()));
                    }
                    if (companion != null && companion.refused()) {
                        return Optional.empty();
                    }
                    raced.add(key);   // another call took the room between the pick and the reservation
                }
            }
        }
        return Optional.empty();
    }

    /**
     * A reserved call is over: its tokens become {@code usedTokens} if the provider said, else the estimate stays
     * ({@code failed} false) or is given back ({@code failed} true).
     */
    public void settle(Lease lease, OptionalLong usedTokens, boolean failed) {
        if (lease.reservation() != null) {
            quotas.get(owned(lease.key())).settle(lease.reservation(), usedTokens, failed);
        }
    }

    /** The quota of one of this pool's keys. */
    public KeyQuota quotaOf(ApiKey key) {
        return quotas.get(owned(key));
    }

    /**
     * How many requests this pool's keys in {@code scope} can take from now until {@code deadline} by their request
     * limits, {@link Long#MAX_VALUE} when a key that can serve by then has none. Disabled keys and keys cooling past
     * the deadline take none.
     */
    public long requestRoomBy(KeyScope scope, Instant deadline) {
        long room = 0;
        for (ApiKey key : keys) {
            if (!scope.admits(key)) {
                continue;
            }
            KeyAvailability availability = refresh(key);
            if (availability.state() == KeyState.DISABLED || key.draining()
                    || availability.state() == KeyState.COOLING && !availability.coolingUntil().isBefore(deadline)) {
                continue;
            }
            long keyRoom = quotas.get(key).requestRoomBy(deadline);
            if (keyRoom == Long.MAX_VALUE) {
                return Long.MAX_VALUE;
            }
            room += keyRoom;
        }
        return room;
    }

    /**
     * The earliest moment a key of this pool in {@code scope} can take a call of {@code tokens}: now when one can, a
     * cooling deadline or the moment a quota window frees room; empty when no key ever will (all disabled, or the
     * call is larger than every key's limit).
     */
    public Optional<Instant> capacityAt(KeyScope scope, long tokens) {
        return capacityAt(scope, tokens, false);
    }

    /** {@link #capacityAt(KeyScope, long)} for a batch line: room below the keys' soft limits ({@link #acquireBelowSoftLimit}). */
    public Optional<Instant> capacityBelowSoftLimitAt(KeyScope scope, long tokens) {
        return capacityAt(scope, tokens, true);
    }

    private Optional<Instant> capacityAt(KeyScope scope, long tokens, boolean belowSoftLimit) {
        Instant now = clock.instant();
        Optional<Instant> soonest = Optional.empty();
        for (ApiKey key : keys) {
            if (!scope.admits(key)) {
                continue;
            }
            KeyAvailability availability = refresh(key);
            if (availability.state() == KeyState.DISABLED || key.draining()) {
                continue;
            }
            Instant from = availability.state() == KeyState.COOLING ? availability.coolingUntil() : now;
            KeyQuota quota = quotas.get(key);
            Optional<Instant> room = (belowSoftLimit ? quota.capacityBelowSoftLimitAt(tokens) : quota.capacityAt(tokens))
                    .map(at -> at.isAfter(from) ? at : from);
            if (room.isPresent() && (soonest.isEmpty() || room.get().isBefore(soonest.get()))) {
                soonest = room;
            }
        }
        return soonest;
    }

    /**
     * The share of traffic a key gets now, relative to the others (design §8): its configured weight times its quota
     * factor (a quarter from 90 % of a window, none from 95 %) times its ramp factor ({@link KeyRamp}: warming up,
     * rolling out, retiring).
     */
    public double effectiveWeight(ApiKey key) {
        KeyQuota quota = quotas.get(key);
        double weight = quota.limited() ? key.weight() * quota.weightFactor() : key.weight();
        return weight * ramp(key).factor(clock.instant());
    }

    /**
     * The key's health now: unhealthy while COOLING or DISABLED; degraded while warming up, rolling out or retiring,
     * at 90 % or more of a quota window, or failing more than the channel's error rate threshold of its calls of
     * the last 60 s.
     */
    public KeyHealth healthOf(ApiKey key) {
        if (stateOf(key) != KeyState.ACTIVE) {
            return KeyHealth.UNHEALTHY;
        }
        KeyStats stats = key.stats();
        boolean failing = stats.windowCalls() > 0
                && 100.0 * stats.windowFailures() / stats.windowCalls() > degradedErrorRatePercent;
        return quotas.get(key).degraded() || ramp(key).ramping(clock.instant()) || failing
                ? KeyHealth.DEGRADED : KeyHealth.HEALTHY;
    }

    /** Whether the key was configured {@code retiring: true}. */
    public boolean retiring(ApiKey key) {
        return ramp(owned(key)).retiring();
    }

    /** When the key's warm-up ends; empty when it is not warming up. */
    public Optional<Instant> warmingUntil(ApiKey key) {
        return Optional.ofNullable(ramp(owned(key)).warmingUntil(clock.instant()));
    }

    /** When the key's rollout ends, or ended; empty for a key without {@code rollout}. */
    public Optional<Instant> rolloutUntil(ApiKey key) {
        return Optional.ofNullable(ramp(owned(key)).rolloutUntil());
    }

    /**
     * A health probe of the key starts (design §8), whatever its state: it takes one request of the key's quota and
     * counts as in flight until its outcome is recorded (with {@link #recordProbeSuccess} or the record methods of
     * real calls) and its lease {@link #settle settled}. Empty when the key's quota has no room for the probe,
     * which then does not go out.
     *
     * @param tokens what the probe may cost in tokens (a models probe none)
     */
    public Optional<Lease> startProbe(ApiKey key, long tokens) {
        ApiKey owned = owned(key);
        KeyQuota quota = quotas.get(owned);
        Lease lease;
        if (!quota.limited()) {
            lease = new Lease(owned, null);
        } else {
            Optional<KeyQuota.Reservation> reservation = quota.tryReserve(tokensFor(quota, () -> tokens), true);
            if (reservation.isEmpty()) {
                return Optional.empty();
            }
            lease = new Lease(owned, reservation.get());
        }
        owned.counters().acquired();
        return Optional.of(lease);
    }

    /**
     * A probe got a 2xx: the failures in a row start again, and a DISABLED key comes back ACTIVE, warming up; a key
     * an operator disabled stays DISABLED.
     */
    public void recordProbeSuccess(ApiKey key, Duration latency) {
        ApiKey owned = owned(key);
        owned.counters().success(millis(latency), 0, 0);
        if (disabledByOperator.contains(owned.fingerprint())) {
            return;
        }
        transition(owned, current -> current.state() == KeyState.DISABLED ? KeyAvailability.ACTIVE : current,
                after -> "probe ok, DISABLED -> ACTIVE" + warmingUp(owned));
    }

    /**
     * The key enters service now though it was never out of it (a key added to a running gateway): it ramps up over
     * the channel's warmup as a key back from DISABLED does.
     *
     * @throws IllegalArgumentException when no key of this channel has that fingerprint
     */
    public void warmUp(String fingerprint) {
        ramp(require(fingerprint)).enteredService(clock.instant());
    }

    /** Whether an operator disabled the key (then only an operator enables it again). */
    public boolean disabledByOperator(ApiKey key) {
        return disabledByOperator.contains(owned(key).fingerprint());
    }

    /** {@link #hasUsableKey(KeyScope, Set)} among the shared keys. */
    public boolean hasUsableKey(Set<String> excludedFingerprints) {
        return hasUsableKey(KeyScope.SHARED, excludedFingerprints);
    }

    /**
     * Whether a key in {@code scope} is usable, quotas aside (what {@link #acquire} needs besides room); changes
     * nothing but expired cooling states.
     */
    public boolean hasUsableKey(KeyScope scope, Set<String> excludedFingerprints) {
        Set<String> excluded = orNone(excludedFingerprints);
        return keys.stream().anyMatch(key -> scope.admits(key) && usable(key, excluded));
    }

    /**
     * Whether a key outside {@code scope} is usable: when none in scope is, the request's tenant has used up its
     * share of the channel, not the channel its keys.
     */
    public boolean hasUsableKeyOutside(KeyScope scope) {
        return keys.stream().anyMatch(key -> !scope.admits(key) && usable(key, Set.of()));
    }

    /** Whether any key of the channel, of whichever tenant, is ACTIVE: the channel's breaker may try it again. */
    public boolean hasActiveKey() {
        return keys.stream().anyMatch(key -> usable(key, Set.of()));
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
        // a DISABLED key stays DISABLED (no change, no line); otherwise it cools until the later deadline
        transition(owned, current -> current.coolUntil(deadline),
                after -> "cooling " + Duration.between(now, after.coolingUntil()).toSeconds() + "s after 429");
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

    /** {@link #soonestRecovery(KeyScope)} among the shared keys. */
    public Optional<Instant> soonestRecovery() {
        return soonestRecovery(KeyScope.SHARED);
    }

    /** The earliest cooling deadline among COOLING keys in {@code scope}; empty when none is cooling. */
    public Optional<Instant> soonestRecovery(KeyScope scope) {
        return keys.stream()
                .filter(scope::admits)
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
        disabledByOperator.remove(fingerprint);
        KeyState before = key.storedState();
        boolean wasDraining = key.drain(false);
        if (transition(key, current -> KeyAvailability.ACTIVE, after -> "enabled by operator, ACTIVE" + warmingUp(key))
                == KeyAvailability.ACTIVE
                && before == KeyState.ACTIVE && wasDraining) {
            announce(key, before, KeyState.ACTIVE, "enabled by operator, ACTIVE (no longer draining)");
        }
    }

    /**
     * Operator: no new calls on this key, while those in flight finish (design §9 drain); {@link #enable} ends it.
     *
     * @throws IllegalArgumentException when no key of this channel has that fingerprint
     */
    public void drain(String fingerprint) {
        ApiKey key = require(fingerprint);
        if (key.drain(true)) {
            KeyState state = stateOf(key);
            announce(key, state, state, "draining by operator: no new requests, " + key.inFlight() + " in flight finish");
        }
    }

    /**
     * Operator: a new weight and new limits, live; the key's state, counters and quota use stay (a window that is
     * newly limited starts empty). Says what changed in one line; nothing when nothing changed.
     *
     * @throws IllegalArgumentException when no key of this channel has that fingerprint, or the weight is below 1
     */
    public void tune(String fingerprint, int weight, QuotaLimits limits) {
        ApiKey key = require(fingerprint);
        String changes = KeyTuning.describe(key.weight(), key.limits(), weight, limits);
        if (changes.isEmpty()) {
            return;
        }
        key.retune(key.label(), weight, limits);
        quotas.get(key).changeLimits(limits);
        KeyState state = stateOf(key);
        announce(key, state, state, "changed by operator: " + changes);
    }

    /** What a {@link #reload} did, by fingerprint. */
    public record Reload(List<String> kept, List<String> added, List<String> removed) {
    }

    /**
     * The channel's keys and settings as a reloaded keypool.yaml has them. A key whose fingerprint stays keeps its
     * state, counters and quota use (its label, weight, limits, tenant and rollout/retiring plan are the new ones); a new key joins ACTIVE; a removed
     * key takes no new calls and is let go once its calls in flight are recorded (they still find it here).
     */
    public synchronized Reload reload(List<ApiKey> configured, SelectionStrategy newStrategy, Duration newCooldown,
                                      int newDisableAfter) {
        checkSettings(channel, newCooldown, newDisableAfter);
        Map<String, ApiKey> wanted = index(configured);
        Map<String, ApiKey> before = byFingerprint;
        List<String> kept = new ArrayList<>();
        List<String> added = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        Map<String, ApiKey> next = new LinkedHashMap<>();
        for (ApiKey fresh : wanted.values()) {
            ApiKey old = before.get(fresh.fingerprint());
            if (old == null) {
                old = removed.remove(fresh.fingerprint());   // removed by an earlier reload, back again
            }
            if (old != null) {
                old.retune(fresh.label(), fresh.weight(), fresh.limits());
                if (old.reassign(fresh.tenant(), fresh.rampPlan())) {
                    ramps.remove(old);   // made anew from the new plan on its next use: a rollout starts from now
                }
                quotas.get(old).changeLimits(fresh.limits());
                old.drain(false);
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
        strategy = newStrategy;
        cooldown = newCooldown;
        disableAfter = newDisableAfter;
        for (String fingerprint : added) {
            // a key added to a running gateway enters service: it warms up (design §8)
            ramp(next.get(fingerprint)).enteredService(clock.instant());
            announce(next.get(fingerprint), KeyState.ACTIVE, KeyState.ACTIVE, "added by reload, ACTIVE" + warmingUp(next.get(fingerprint)));
        }
        for (String fingerprint : gone) {
            ApiKey old = removed.get(fingerprint);
            KeyState state = old.storedState();
            announce(old, state, state, "removed by reload, draining: " + old.inFlight() + " in flight finish");
        }
        forgetIdleRemovedKeys();
        return new Reload(kept, added, gone);
    }

    /**
     * A key that joins the running pool without a reload: an operator's (design §9, keys at runtime), which warms up
     * over the channel's warmup as a key a reload adds ({@code entersService}), or one kept beside keypool.yaml that is
     * in service already at startup. A key this pool had removed while calls were still in flight on it comes back
     * with its state and counters.
     *
     * @return false, and nothing changed, when the pool has a key with that fingerprint already
     */
    public synchronized boolean add(ApiKey key, boolean entersService) {
        Objects.requireNonNull(key, "key");
        if (byFingerprint.containsKey(key.fingerprint())) {
            return false;
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
        if (entersService) {
            ramp(joined).enteredService(clock.instant());
        } else {
            ramp(joined);
        }
        KeyState state = stateOf(joined);
        announce(joined, state, state, "added by operator, " + state + (entersService ? warmingUp(joined) : ""));
        return true;
    }

    /**
     * A key that leaves the running pool without a reload, as one a reload removes: no new calls, and it is let go
     * once the calls in flight on it are recorded.
     *
     * @return false when the pool has no key with that fingerprint
     */
    public synchronized boolean remove(String fingerprint) {
        ApiKey key = byFingerprint.get(fingerprint);
        if (key == null) {
            return false;
        }
        key.drain(true);
        // in removed before it leaves the index, so that a call in flight on it always finds it
        removed.put(fingerprint, key);
        Map<String, ApiKey> next = new LinkedHashMap<>(byFingerprint);
        next.remove(fingerprint);
        keys = List.copyOf(next.values());
        byFingerprint = Collections.unmodifiableMap(next);
        KeyState state = key.storedState();
        announce(key, state, state, "removed by operator, draining: " + key.inFlight() + " in flight finish");
        forgetIdleRemovedKeys();
        return true;
    }

    /** Removed keys with no call left in flight are let go (their quota with them). */
    private void forgetIdleRemovedKeys() {
        removed.values().removeIf(key -> {
            if (key.inFlight() > 0) {
                return false;
            }
            quotas.remove(key);
            return true;
        });
    }

    /** One log line (INFO) and one event for an operator's or a reload's change that is not a move of the key's state. */
    private void announce(ApiKey key, KeyState from, KeyState to, String message) {
        String line = "Key " + key.fingerprint() + "(" + channel + ") " + message;
        LOG.info(line);
        listener.stateChanged(new KeyStateChange(clock.instant(), channel, key.fingerprint(), from, to, line));
    }

    /**
     * A key's state as another gateway instance shared it (design §11): COOLING until {@code coolingUntil} (a deadline
     * is only ever extended, and one already past changes nothing), DISABLED ({@code byOperator}: only an operator
     * brings it back), ACTIVE again after being DISABLED (a COOLING key cools on), and whether it drains. Each change
     * is logged and heard by the pool's listener like any other. A fingerprint this pool does not have is ignored.
     */
    public void applyShared(String fingerprint, KeyState state, Instant coolingUntil, boolean draining, boolean byOperator) {
        ApiKey key = byFingerprint.get(fingerprint);
        if (key == null) {
            return;
        }
        if (key.drain(draining)) {
            KeyState now = stateOf(key);
            announce(key, now, now, draining ? "draining on another instance" : "no longer draining (another instance)");
        }
        switch (state) {
            case COOLING -> {
                Instant now = clock.instant();
                if (coolingUntil != null && coolingUntil.isAfter(now)) {
                    transition(key, current -> current.coolUntil(coolingUntil), after -> "cooling "
                            + Duration.between(now, after.coolingUntil()).toSeconds() + "s (429 on another instance)");
                }
            }
            case DISABLED -> {
                if (byOperator) {
                    disabledByOperator.add(fingerprint);
                }
                transition(key, current -> KeyAvailability.DISABLED, after -> byOperator
                        ? "disabled by operator (on another instance)" : "disabled on another instance");
            }
            case ACTIVE -> {
                disabledByOperator.remove(fingerprint);
                transition(key, current -> current.state() == KeyState.DISABLED ? KeyAvailability.ACTIVE : current,
                        after -> "enabled on another instance, ACTIVE" + warmingUp(key));
            }
        }
    }

    /**
     * Operator: out of rotation until enabled again.
     *
     * @throws IllegalArgumentException when no key of this channel has that fingerprint
     */
    public void disable(String fingerprint) {
        ApiKey key = require(fingerprint);
        disabledByOperator.add(fingerprint);
        transition(key, current -> KeyAvailability.DISABLED, after -> "disabled by operator");
    }

    @Override
    public String toString() {
        return "KeyPool[" + channel + ", " + keys.size() + " keys, " + strategy + "]";
    }

    private boolean fits(ApiKey key, LongSupplier tokens, boolean reserve) {
        KeyQuota quota = quotas.get(key);
        return !quota.limited() || quota.fits(tokensFor(quota, tokens), reserve);
    }

    private boolean fitsBelowSoftLimit(ApiKey key, LongSupplier tokens) {
        KeyQuota quota = quotas.get(key);
        return !quota.limited() || quota.fitsBelowSoftLimit(tokensFor(quota, tokens));
    }

    private static long tokensFor(KeyQuota quota, LongSupplier tokens) {
        return quota.countsTokens() ? tokens.getAsLong() : 0;
    }

    private boolean usable(ApiKey key, Set<String> excluded) {
        return !excluded.contains(key.fingerprint()) && !key.draining() && refresh(key).state() == KeyState.ACTIVE;
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
     * @param message what happened, given the availability now in place
     * @return the availability now in place
     */
    private KeyAvailability transition(ApiKey key, UnaryOperator<KeyAvailability> change,
                                       Function<KeyAvailability, String> message) {
        KeyAvailability.Change done = key.updateAvailability(change);
        if (!done.changed()) {
            return done.after();
        }
        if (done.before().state() == KeyState.DISABLED && done.after().state() == KeyState.ACTIVE) {
            // back in service (re-enabled, or a probe succeeded): it ramps up over the channel's warmup
            ramp(key).enteredService(clock.instant());
        }
        String line = "Key " + key.fingerprint() + "(" + channel + ") " + message.apply(done.after());
        if (done.after().state() == KeyState.DISABLED) {
            LOG.warn(line);
        } else {
            LOG.info(line);
        }
        listener.stateChanged(new KeyStateChange(clock.instant(), channel, key.fingerprint(),
                done.before().state(), done.after().state(), line));
        return done.after();
    }

    /** The key's ramp, made when the key is first seen: its rollout runs from then. */
    private KeyRamp ramp(ApiKey key) {
        return ramps.computeIfAbsent(key, k -> new KeyRamp(warmup, k.rampPlan(), clock.instant()));
    }

    /** " (warming up 3m)" for a key that warms up as it comes back, else nothing. */
    private String warmingUp(ApiKey key) {
        if (warmup.isZero()) {
            return "";
        }
        long seconds = warmup.toSeconds();
        return " (warming up " + (seconds > 0 && seconds % 60 == 0 ? seconds / 60 + "m" : seconds > 0 ? seconds + "s"
                : warmup.toMillis() + "ms") + ")";
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
        if (byFingerprint.get(key.fingerprint()) != key && removed.get(key.fingerprint()) != key) {
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
