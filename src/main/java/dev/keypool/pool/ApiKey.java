package dev.keypool.pool;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import dev.keypool.auth.ProviderAuth;
import dev.keypool.quota.QuotaLimits;

/**
 * One upstream API key: its secret, its state and its counters. The secret leaves the object only through
 * {@link #credential(ProviderAuth)}; everything printable names the key by its {@link Fingerprint}.
 * State changes are made by the {@link KeyPool} the key belongs to.
 */
public final class ApiKey {

    private final String secret;
    private final String fingerprint;
    // the file's values, or an operator's (reload, PATCH /admin/keys): read on every pick, changed rarely
    private volatile String label;
    private volatile int weight;
    private volatile QuotaLimits limits;
    /** Drained by an operator or removed by a reload: no new calls, those in flight finish. */
    private volatile boolean draining;
    // the file's, replaced by a reload that changes them (reassign)
    private volatile String tenant;
    private volatile KeyRamp.Plan rampPlan;
    private final AtomicReference<KeyAvailability> availability = new AtomicReference<>(KeyAvailability.ACTIVE);
    private final KeyCounters counters = new KeyCounters();
    private final CoolingStreak coolingStreak = new CoolingStreak();
    private final KeyRecovery recovery = new KeyRecovery();

    /**
     * @param secret the raw key, without whitespace or control characters (it goes into an HTTP header)
     * @param label  a human name for the key, may be null; must not contain the secret
     * @param weight share of traffic for the weighted strategies, at least 1
     */
    public ApiKey(String secret, String label, int weight) {
        this(secret, label, weight, QuotaLimits.NONE);
    }

    /** @param limits the key's quota (design §6), kept by the pool it joins */
    public ApiKey(String secret, String label, int weight, QuotaLimits limits) {
        this(secret, label, weight, limits, KeyRamp.Plan.NONE, null);
    }

    /**
     * @param rampPlan whether the key rolls out or is retiring (design §8), applied by the pool it joins
     * @param tenant   the tenant whose own key this is (design §7), null for a shared key
     */
    public ApiKey(String secret, String label, int weight, QuotaLimits limits, KeyRamp.Plan rampPlan, String tenant) {
        if (secret == null || secret.isBlank()) {
            throw new IllegalArgumentException("API key secret must not be blank");
        }
        this.fingerprint = Fingerprint.of(secret);
        if (secret.codePoints().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw new IllegalArgumentException("API key " + fingerprint + " contains whitespace or control characters");
        }
        this.secret = secret;
        retune(label, weight, limits);
        this.tenant = tenant;
        this.rampPlan = Objects.requireNonNull(rampPlan, "rampPlan");
    }

    public String fingerprint() {
        return fingerprint;
    }

    /** The configured label, or null when there is none. */
    public String label() {
        return label;
    }

    public int weight() {
        return weight;
    }

    public QuotaLimits limits() {
        return limits;
    }

    /** The tenant whose own key this is, or null for a key of the shared pool. */
    public String tenant() {
        return tenant;
    }

    public KeyRamp.Plan rampPlan() {
        return rampPlan;
    }

    /**
     * The value of the header {@code auth} names ({@code "Bearer " + secret}, or the bare secret for
     * {@code x-api-key}): the only way the secret leaves this object.
     */
    public String credential(ProviderAuth auth) {
        return auth.headerValue(secret);
    }

    /**
     * The state as the pool last stored it: a COOLING key whose deadline has passed stays COOLING here until the
     * pool looks at it again. {@link KeyPool#stateOf} is the state now.
     */
    KeyState storedState() {
        return availability.get().state();
    }

    /** The cooling deadline as last stored, see {@link #storedState()}. */
    Optional<Instant> storedCoolingUntil() {
        return Optional.ofNullable(availability.get().coolingUntil());
    }

    public KeyStats stats() {
        return counters.snapshot();
    }

    public int inFlight() {
        return counters.inFlight();
    }

    /** Mean latency of the calls in the last 60 seconds, empty when there were none. */
    public OptionalDouble recentLatencyMs() {
        return counters.recentLatencyMs();
    }

    @Override
    public String toString() {
        return label == null ? "ApiKey[" + fingerprint + "]" : "ApiKey[" + fingerprint + "(" + label + ")]";
    }

    /** {@code text} with any occurrence of the secret replaced by the fingerprint, for messages from outside. */
    String redact(String text) {
        return text == null ? null : text.replace(secret, fingerprint);
    }

    /** Whether the key takes no new calls (drained by an operator, or removed by a reload); calls in flight finish. */
    public boolean draining() {
        return draining;
    }

    /** @return whether this changed the flag */
    boolean drain(boolean drained) {
        boolean before = draining;
        draining = drained;
        return before != drained;
    }

    /** New label, weight and limits (a reload, an operator): the key's state, counters and quota use stay. */
    /**
     * A reload gave the key another owner (a tenant, or the shared pool) or another rollout/retiring plan.
     *
     * @return whether the plan changed, so that the pool makes the key's ramp anew
     */
    boolean reassign(String tenant, KeyRamp.Plan rampPlan) {
        this.tenant = tenant;
        boolean planChanged = !this.rampPlan.equals(rampPlan);
        this.rampPlan = Objects.requireNonNull(rampPlan, "rampPlan");
        return planChanged;
    }

    void retune(String label, int weight, QuotaLimits limits) {
        if (label != null && label.contains(secret)) {
            // labels end up in logs and metrics, so a pasted secret there would leak it
            throw new IllegalArgumentException("Label of API key " + fingerprint + " contains the secret");
        }
        if (weight < 1) {
            throw new IllegalArgumentException("Weight of API key " + fingerprint + " must be at least 1, was " + weight);
        }
        this.label = label;
        this.weight = weight;
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    KeyCounters counters() {
        return counters;
    }

    CoolingStreak coolingStreak() {
        return coolingStreak;
    }

    KeyRecovery recovery() {
        return recovery;
    }

    void useClock(Clock clock) {
        counters.useClock(Objects.requireNonNull(clock, "clock"));
    }

    /** Applies {@code transition} atomically, retrying on contention; {@code transition} must be side-effect free. */
    KeyAvailability.Change updateAvailability(UnaryOperator<KeyAvailability> transition) {
        while (true) {
            KeyAvailability before = availability.get();
            KeyAvailability after = transition.apply(before);
            if (after == before || availability.compareAndSet(before, after)) {
                return new KeyAvailability.Change(before, after);
            }
        }
    }
}
