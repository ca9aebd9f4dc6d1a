package dev.keypool.tenant;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

import dev.keypool.auth.Sha256;

/**
 * The configured tenants; none means the gateway is open to every client (design §7). A reload of keypool.yaml
 * replaces them as a whole ({@link #replace}): each call reads one consistent set through one volatile read, and a
 * request already admitted keeps the {@link Tenant} it was admitted as until it finishes.
 */
public final class Tenants {

    private volatile List<Tenant> all;
    /** Tells when a tenant expired and a rotated token's grace ends. */
    private final Clock clock;
    /**
     * Whether tokens are required even with no tenant left: once tenants are managed at runtime, deleting the last one
     * must not open the gateway.
     */
    private volatile boolean keptEnforced;
    /** Tokens hashed by {@link #authenticate}, one per request that presents one (tests read it). */
    private final LongAdder tokensHashed = new LongAdder();

    public Tenants(List<Tenant> tenants) {
        this(tenants, Clock.systemUTC());
    }

    public Tenants(List<Tenant> tenants, Clock clock) {
        this.all = List.copyOf(tenants);
        this.clock = clock;
    }

    /** Whether clients must present a tenant's token. */
    public boolean enforced() {
        return keptEnforced || !all.isEmpty();
    }

    /** Tokens stay required with no tenant left (tenants managed through the admin API). */
    public void keepEnforced() {
        keptEnforced = true;
    }

    public List<Tenant> all() {
        return all;
    }

    /** The tenant of this name, as a host application names it through the keypool component; none once expired. */
    public Optional<Tenant> named(String name) {
        return named(all, name).filter(tenant -> !tenant.expired(clock.instant()));
    }

    private static Optional<Tenant> named(List<Tenant> all, String name) {
        return all.stream().filter(tenant -> tenant.name().equals(name)).findFirst();
    }

    /**
     * The tenant whose token this is. The token is hashed once and compared with every tenant's hash in constant
     * time, all of them whatever matches, so that neither the time nor the position gives anything away.
     */
    public Optional<Tenant> authenticate(String token) {
        if (token == null || token.isEmpty()) {
            return Optional.empty();
        }
        byte[] presented = Sha256.of(token);
        tokensHashed.increment();
        Instant now = clock.instant();
        Tenant found = null;
        for (Tenant tenant : all) {
            if (tenant.hasTokenHash(presented, now) && found == null) {
                found = tenant;
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * Whether this tenant, found by {@link #authenticate} a moment ago, is still one of the tenants: a reload since
     * then that removed it or changed its definition (its token, perhaps) replaced it by no tenant or another object.
     * Compares references, no token.
     */
    public boolean isCurrent(Tenant tenant) {
        for (Tenant current : all) {
            if (current == tenant) {
                return true;
            }
        }
        return false;
    }

    /** How many tokens {@link #authenticate} has hashed. */
    public long tokensHashed() {
        return tokensHashed.sum();
    }

    /**
     * The tenants of a reloaded configuration, in the order of {@code names}: one in {@code fresh} (new, or its
     * definition changed) replaces the tenant of that name, and continues what that one counted (budget spent, requests
     * today, usage); any other name keeps its tenant as it is. A tenant not in {@code names} is gone: its token is
     * refused from the next request on.
     *
     * @param names every tenant of the new configuration
     * @param fresh the tenants built anew, by name
     */
    public synchronized Reload replace(List<String> names, Map<String, Tenant> fresh) {
        List<Tenant> before = all;
        List<Tenant> next = new ArrayList<>(names.size());
        List<String> added = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        for (String name : names) {
            Optional<Tenant> old = named(before, name);
            Tenant made = fresh.get(name);
            if (made == null) {
                next.add(old.orElseThrow(() -> new IllegalArgumentException("Tenant " + name + " is neither new nor known")));
                kept.add(name);
            } else {
                old.ifPresent(made::continueFrom);
                next.add(made);
                (old.isPresent() ? changed : added).add(name);
            }
        }
        Set<String> staying = Set.copyOf(names);
        List<String> removed = before.stream().map(Tenant::name).filter(name -> !staying.contains(name))
                .collect(Collectors.toList());
        all = List.copyOf(next);
        return new Reload(added, changed, removed, kept);
    }

    /** What a {@link #replace} did, by tenant name. */
    public record Reload(List<String> added, List<String> changed, List<String> removed, List<String> kept) {

        /** e.g. "tenants 1 added, 1 changed, 0 removed" */
        public String summary() {
            return "tenants " + added.size() + " added, " + changed.size() + " changed, " + removed.size() + " removed";
        }
    }
}
