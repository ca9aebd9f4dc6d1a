package dev.keypool.tenant;

import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

import dev.keypool.gateway.InFlightLimit;
import dev.keypool.pool.KeyScope;
import dev.keypool.quota.Priority;

/**
 * A client of the gateway (design §7): who it is (only the SHA-256 of its token is kept), what it may use, its own
 * limits, its place in the waiting line and what it has used.
 */
public final class Tenant {

    private final String name;
    private final TenantAccess access;
    private final Priority priority;
    private final Set<String> channels;
    private final ModelPatterns models;
    private final KeyScope keyScope;
    private final TenantLimits limits;
    private final TenantUsage usage = new TenantUsage();
    /** Its requests and streams in flight in this instance; null = no limit of its own. */
    private final InFlightLimit inFlight;

    /**
     * @param channels the channels it may use, empty for all
     * @param models   the models it may use ({@code *} wildcards), empty for all
     * @param borrow   whether it may use the shared keys when its own cannot serve
     */
    public Tenant(String name, String token, Priority priority, List<String> channels, List<String> models,
                  boolean borrow, TenantLimits limits) {
        this(name, token, priority, channels, models, borrow, limits, null);
    }

    /** @param maxInFlight the most of its requests in flight at once in this instance, null for no limit */
    public Tenant(String name, String token, Priority priority, List<String> channels, List<String> models,
                  boolean borrow, TenantLimits limits, Integer maxInFlight) {
        this(name, TenantAccess.token(token), priority, channels, models, borrow, limits, maxInFlight);
    }

    /** @param access its token's hash (and a rotated one's, while its grace lasts) and when it expires */
    public Tenant(String name, TenantAccess access, Priority priority, List<String> channels, List<String> models,
                  boolean borrow, TenantLimits limits, Integer maxInFlight) {
        this.inFlight = maxInFlight == null ? null : new InFlightLimit(maxInFlight);
        this.name = name;
        this.access = access;
        this.priority = priority;
        this.channels = Set.copyOf(channels);
        this.models = new ModelPatterns(models);
        this.keyScope = new KeyScope(name, borrow);
        this.limits = limits;
    }

    public String name() {
        return name;
    }

    public Priority priority() {
        return priority;
    }

    /**
     * Whether the presented token is this tenant's (or its previous one's within a rotation's grace) and the tenant has
     * not expired at {@code now}, in time that does not depend on where they differ.
     */
    boolean hasTokenHash(byte[] presentedHash, Instant now) {
        return access.admits(presentedHash, now);
    }

    /** Whether it has expired at {@code now}: its token is refused from then on. */
    public boolean expired(Instant now) {
        return access.expired(now);
    }

    public boolean mayUseModel(String model) {
        return models.allows(model);
    }

    public boolean mayUseChannel(String channel) {
        return channels.isEmpty() || channels.contains(channel);
    }

    /** Its own keys, then the shared ones if it may borrow. */
    public KeyScope keyScope() {
        return keyScope;
    }

    public TenantLimits limits() {
        return limits;
    }

    public TenantUsage usage() {
        return usage;
    }

    /**
     * This tenant replaces {@code previous} of the same name after a reload changed its definition: it goes on from
     * what that one counted (its limits' day and month counts and budget spent, its usage).
     */
    void continueFrom(Tenant previous) {
        limits.continueFrom(previous.limits);
        usage.continueFrom(previous.usage);
    }

    /**
     * Takes one of its places in flight; false when all are taken. Every true must be matched by one
     * {@link #leaveInFlight()}. Counted in this instance only, also with Redis: a place is held by a connection here.
     */
    public boolean tryEnterInFlight() {
        return inFlight == null || inFlight.tryEnter();
    }

    public void leaveInFlight() {
        if (inFlight != null) {
            inFlight.leave();
        }
    }

    /** Its requests in flight now, as far as they are counted (0 without a limit). */
    public int inFlight() {
        return inFlight == null ? 0 : inFlight.inFlight();
    }

    /** The most of its requests in flight at once; empty when unlimited. */
    public OptionalInt maxInFlight() {
        return inFlight == null ? OptionalInt.empty() : OptionalInt.of(inFlight.max());
    }

    @Override
    public String toString() {
        return "Tenant[" + name + "]";
    }
}
