package dev.keypool.admin;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import dev.keypool.auth.TenantTokens;
import dev.keypool.config.ConfigException;
import dev.keypool.config.TenantChange;
import dev.keypool.config.TenantConfig;
import dev.keypool.events.StateListener;
import dev.keypool.quota.Priority;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.TenantAccess;
import dev.keypool.tenant.TenantStateChange;
import dev.keypool.tenant.TenantStateChange.Presence;
import dev.keypool.tenant.Tenants;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tenants in force (design §7, §9): those of keypool.yaml with the fields the admin API set laid over them, and
 * those created through the admin API, less the deleted ones. The store is the one truth every instance reads: a change
 * is written there, then this instance's {@link Tenants} are made from the store again ({@link #refresh}), as every other
 * instance does when it notices the store's revision move. A tenant whose definition did not change keeps its object,
 * and with it what it counted; one that changed goes on from what its predecessor counted.
 *
 * <p>Tokens: a new one is answered once to the caller and never kept; the store keeps its SHA-256.
 */
public final class RuntimeTenants {

    private static final Logger LOG = LoggerFactory.getLogger(RuntimeTenants.class);
    /** How often a write that lost to another instance's is tried again on what that one wrote. */
    private static final int ATTEMPTS = 5;

    /** Makes the {@link Tenant} of an effective definition (its limits local or shared, the gateway's defaults). */
    @FunctionalInterface
    public interface Factory {
        Tenant make(TenantConfig tenant, TenantAccess access);
    }

    /** A tenant as the admin API shows it: never a token nor a hash. */
    public record View(String name, TenantRecord.Origin origin, TenantConfig tenant, Instant expiresAt, boolean expired,
                       Set<String> overridden, Instant previousTokenUntil, Instant createdAt, Instant updatedAt) {
    }

    /** A token answered once, by create or rotate, with the tenant it belongs to. */
    public record Issued(String token, View tenant) {
        @Override
        public String toString() {
            return "Issued[" + tenant.name() + "]";
        }
    }

    /** What makes a tenant what it is; equal definitions keep their {@link Tenant}. */
    private record Definition(TenantConfig tenant, String tokenHash, String previousHash, Instant previousUntil,
                              Instant expiresAt) {
    }

    private final TenantStore store;
    private final Tenants tenants;
    private final Factory factory;
    private final Clock clock;
    private final StateListener events;
    // guarded by this
    private List<TenantConfig> file = List.of();
    private Map<String, TenantRecord> records = Map.of();
    private Map<String, Definition> definitions = new LinkedHashMap<>();
    private long revision = Long.MIN_VALUE;
    /** False until the first {@link #fileRead}: what the start finds is logged once, not told as changes. */
    private boolean started;

    /**
     * @param tenants the tenants the gateway authenticates against, replaced as the store changes
     * @param events  hears every tenant created, changed or gone
     */
    public RuntimeTenants(TenantStore store, Tenants tenants, Factory factory, Clock clock, StateListener events) {
        this.store = store;
        this.tenants = tenants;
        this.factory = factory;
        this.clock = clock;
        this.events = events;
    }

    /**
     * The tenants of keypool.yaml, at startup or after a reload: each gets its row in the store (marked as from the
     * file) and the tenants in force are made again.
     */
    public synchronized Tenants.Reload fileRead(List<TenantConfig> fileTenants, String by) {
        file = List.copyOf(fileTenants);
        if (!started) {
            // the gateway made these from the file already: those the admin API changed nothing of stay as made
            file.forEach(t -> definitions.put(t.name(), definition(withoutToken(t), null, TenantTokens.hash(t.token()))));
        }
        Map<String, TenantRecord> stored;
        try {
            stored = read();
        } catch (IllegalStateException storeDown) {
            if (!started) {
                throw storeDown;
            }
            // a reload must not fail on the database: the file's tenants, with what the store held when last read
            LOG.warn("Tenants: {}; keypool.yaml's tenants applied with the admin API's changes last read", storeDown.getMessage());
            return apply(records, revision, by);
        }
        Instant now = clock.instant();
        for (TenantConfig tenant : file) {
            TenantRecord row = stored.get(tenant.name());
            if (row == null) {
                store.put(new TenantRecord(tenant.name(), TenantRecord.Origin.FILE, "{}", null, null, null, false, now,
                        now, 0), 0);
            } else if (row.origin() == TenantRecord.Origin.API && !row.deleted()) {
                // named in the file now: the file owns it, what the API set lies over it, its token included
                LOG.warn("Tenant {} of keypool.yaml was created through the admin API before: its settings and token "
                        + "from the admin API lie over the file's", tenant.name());
                store.put(copy(row, TenantRecord.Origin.FILE, row.settings(), row.tokenHash(), row.previousHash(),
                        row.previousUntil(), false, now), row.version());
            }
        }
        return refresh(by);
    }

    /** Timer and change notices: makes the tenants again when the store changed since they were last made. */
    public synchronized void refreshIfChanged() {
        if (store.revision() != revision) {
            refresh("another instance");
        }
    }

    /** Makes the tenants in force again from the store; answers what changed. */
    synchronized Tenants.Reload refresh(String by) {
        long seen = store.revision();
        return apply(read(), seen, by);
    }

    /** Makes the tenants in force from these rows of the store, read at {@code seen}. */
    private Tenants.Reload apply(Map<String, TenantRecord> stored, long seen, String by) {
        Map<String, Definition> next = new LinkedHashMap<>();
        for (TenantConfig tenant : file) {
            TenantRecord row = stored.get(tenant.name());
            if (row != null && row.deleted()) {
                continue;
            }
            String hash = row != null && row.tokenHash() != null ? row.tokenHash() : TenantTokens.hash(tenant.token());
            next.put(tenant.name(), definition(withoutToken(tenant), row, hash));
        }
        boolean managed = false;
        for (TenantRecord row : stored.values()) {
            managed |= row.origin() == TenantRecord.Origin.API || row.deleted();
            if (row.origin() == TenantRecord.Origin.API && !row.deleted() && !next.containsKey(row.name())) {
                next.put(row.name(), definition(blank(row.name()), row, row.tokenHash()));
            }
        }
        Map<String, Tenant> fresh = new LinkedHashMap<>();
        next.forEach((name, definition) -> {
            if (!definition.equals(definitions.get(name))) {
                fresh.put(name, factory.make(definition.tenant(), TenantAccess.ofHex(definition.tokenHash(),
                        definition.previousHash(), definition.previousUntil(), definition.expiresAt())));
            }
        });
        if (managed) {
            // tenants managed at runtime: deleting the last one must not open the gateway
            tenants.keepEnforced();
        }
        Tenants.Reload done = tenants.replace(List.copyOf(next.keySet()), fresh);
        Map<String, Definition> before = definitions;
        definitions = next;
        records = stored;
        revision = seen;
        if (started) {
            tell(before, next, done, by);
        }
        started = true;
        return done;
    }

    /** {@code POST /admin/tenants}: a new tenant and its token, answered only here. */
    public synchronized Issued create(String name, TenantChange change) {
        String token = TenantTokens.newToken();
        for (int attempt = 1; ; attempt++) {
            refresh("another instance");
            if (definitions.containsKey(name)) {
                throw new TenantConflictException("Tenant '" + name + "' exists already");
            }
            TenantRecord row = records.get(name);
            boolean inFile = file.stream().anyMatch(t -> t.name().equals(name));
            TenantConfig base = inFile ? fileTenant(name) : blank(name);
            check(change.over(base));
            Instant now = clock.instant();
            TenantRecord created = new TenantRecord(name, inFile ? TenantRecord.Origin.FILE : TenantRecord.Origin.API,
                    change.toJson(), TenantTokens.hash(token), null, null, false, now, now, 0);
            if (store.put(created, row == null ? 0 : row.version())) {
                refresh("admin API");
                return new Issued(token, view(name).orElseThrow());
            }
            giveUpAfter(attempt, name);
        }
    }

    /** {@code PATCH /admin/tenants/{name}}: the fields given lie over the file's; a null gives one back. */
    public synchronized View patch(String name, TenantChange change) {
        return rewrite(name, row -> {
            TenantChange merged = TenantChange.stored(row.settings()).then(change);
            check(merged.over(baseOf(row)));
            return copy(row, row.origin(), merged.toJson(), row.tokenHash(), row.previousHash(), row.previousUntil(),
                    false, clock.instant());
        }).view;
    }

    /** {@code DELETE /admin/tenants/{name}}: its token is refused from the next request on. */
    public synchronized void delete(String name) {
        rewrite(name, row -> copy(row, row.origin(), row.settings(), null, null, null, true, clock.instant()));
    }

    /**
     * {@code POST /admin/tenants/{name}/rotate}: a new token, answered only here; the one before is still taken for
     * {@code grace} (0: refused from the next request on).
     */
    public synchronized Issued rotate(String name, Duration grace) {
        String token = TenantTokens.newToken();
        Done done = rewrite(name, row -> {
            Instant now = clock.instant();
            String current = definitions.get(name).tokenHash();
            boolean keepOld = !grace.isZero();
            return copy(row, row.origin(), row.settings(), TenantTokens.hash(token), keepOld ? current : null,
                    keepOld ? now.plus(grace) : null, false, now);
        });
        return new Issued(token, done.view);
    }

    public synchronized List<View> list() {
        return definitions.keySet().stream().map(name -> view(name).orElseThrow()).toList();
    }

    public synchronized Optional<View> view(String name) {
        Definition definition = definitions.get(name);
        if (definition == null) {
            return Optional.empty();
        }
        TenantRecord row = records.get(name);
        TenantRecord.Origin origin = row == null ? TenantRecord.Origin.FILE : row.origin();
        Set<String> overridden = row == null ? Set.of() : TenantChange.stored(row.settings()).fields();
        Instant now = clock.instant();
        Instant previousUntil = definition.previousUntil() != null && now.isBefore(definition.previousUntil())
                ? definition.previousUntil() : null;
        return Optional.of(new View(name, origin, definition.tenant(), definition.expiresAt(),
                definition.expiresAt() != null && !now.isBefore(definition.expiresAt()), overridden, previousUntil,
                row == null ? null : row.createdAt(), row == null ? null : row.updatedAt()));
    }

    private record Done(View view) {
    }

    /** Writes a new version of a tenant in force, made from its stored row, again on what another write left. */
    private Done rewrite(String name, Function<TenantRecord, TenantRecord> change) {
        for (int attempt = 1; ; attempt++) {
            refresh("another instance");
            TenantRecord row = records.get(name);
            if (!definitions.containsKey(name) || row == null) {
                throw new TenantNotFoundException(name);
            }
            if (store.put(change.apply(row), row.version())) {
                refresh("admin API");
                return new Done(view(name).orElse(null));
            }
            giveUpAfter(attempt, name);
        }
    }

    private static void giveUpAfter(int attempt, String name) {
        if (attempt >= ATTEMPTS) {
            throw new TenantConflictException("Tenant '" + name + "' is being changed by another instance; retry");
        }
    }

    private Definition definition(TenantConfig base, TenantRecord row, String tokenHash) {
        TenantChange change = row == null ? TenantChange.none() : storedChange(row);
        return new Definition(change.over(base), tokenHash, row == null ? null : row.previousHash(),
                row == null ? null : row.previousUntil(), change.expiresAt());
    }

    /** A stored change that no longer reads (written by a newer version, say) is left out, with a WARN. */
    private static TenantChange storedChange(TenantRecord row) {
        try {
            return TenantChange.stored(row.settings());
        } catch (RuntimeException unreadable) {
            LOG.warn("Tenant {}: its settings in the store cannot be read, the file's apply: {}", row.name(),
                    unreadable.getMessage());
            return TenantChange.none();
        }
    }

    private TenantConfig baseOf(TenantRecord row) {
        return row.origin() == TenantRecord.Origin.FILE && file.stream().anyMatch(t -> t.name().equals(row.name()))
                ? fileTenant(row.name()) : blank(row.name());
    }

    private TenantConfig fileTenant(String name) {
        return withoutToken(file.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow());
    }

    private static void check(TenantConfig tenant) {
        List<String> problems = TenantChange.problemsOf(tenant);
        if (!problems.isEmpty()) {
            throw new ConfigException("the request body", problems);
        }
    }

    private Map<String, TenantRecord> read() {
        Map<String, TenantRecord> byName = new LinkedHashMap<>();
        store.all().forEach(row -> byName.put(row.name(), row));
        return byName;
    }

    /** Logs and publishes each tenant created, changed or gone. */
    private void tell(Map<String, Definition> before, Map<String, Definition> after, Tenants.Reload done, String by) {
        Instant now = clock.instant();
        for (String name : done.added()) {
            announce(new TenantStateChange(now, name, Presence.ABSENT, Presence.PRESENT,
                    "Tenant " + name + " created (" + by + ")"));
        }
        for (String name : done.changed()) {
            Definition was = before.get(name);
            Definition is = after.get(name);
            List<String> what = new ArrayList<>(changedFields(was.tenant(), is.tenant()));
            if (!Objects.equals(was.expiresAt(), is.expiresAt())) {
                what.add("expiresAt");
            }
            String rotated = Objects.equals(was.tokenHash(), is.tokenHash()) ? ""
                    : is.previousUntil() == null ? ", token rotated" : ", token rotated, the previous one taken until "
                    + is.previousUntil();
            announce(new TenantStateChange(now, name, Presence.PRESENT, Presence.PRESENT, "Tenant " + name + " changed"
                    + (what.isEmpty() ? "" : ": " + String.join(", ", what)) + rotated + " (" + by + ")"));
        }
        for (String name : done.removed()) {
            announce(new TenantStateChange(now, name, Presence.PRESENT, Presence.ABSENT,
                    "Tenant " + name + " gone (" + by + "): its token is refused"));
        }
    }

    private void announce(TenantStateChange change) {
        LOG.info(change.message());
        events.stateChanged(change);
    }

    private static List<String> changedFields(TenantConfig a, TenantConfig b) {
        Map<String, Function<TenantConfig, Object>> fields = new LinkedHashMap<>();
        fields.put("rpm", TenantConfig::rpm);
        fields.put("burst", TenantConfig::burst);
        fields.put("tpm", TenantConfig::tpm);
        fields.put("rpd", TenantConfig::rpd);
        fields.put("priority", TenantConfig::priority);
        fields.put("channels", TenantConfig::channels);
        fields.put("models", TenantConfig::models);
        fields.put("budget.daily", TenantConfig::budgetDaily);
        fields.put("budget.monthly", TenantConfig::budgetMonthly);
        fields.put("borrow", TenantConfig::borrow);
        fields.put("maxInFlight", TenantConfig::maxInFlight);
        return fields.entrySet().stream().filter(f -> !Objects.equals(f.getValue().apply(a), f.getValue().apply(b)))
                .map(Map.Entry::getKey).toList();
    }

    private static TenantRecord copy(TenantRecord row, TenantRecord.Origin origin, String settings, String tokenHash,
                                     String previousHash, Instant previousUntil, boolean deleted, Instant now) {
        return new TenantRecord(row.name(), origin, settings, tokenHash, previousHash, previousUntil, deleted,
                row.createdAt(), now, row.version());
    }

    private static TenantConfig withoutToken(TenantConfig t) {
        return new TenantConfig(t.name(), null, t.rpm(), t.burst(), t.tpm(), t.rpd(), t.priority(), t.channels(),
                t.models(), t.budgetDaily(), t.budgetMonthly(), t.borrow(), t.maxInFlight());
    }

    /** A tenant created through the API before its fields are laid over: every default, no limit. */
    private static TenantConfig blank(String name) {
        return new TenantConfig(name, null, null, null, null, null, Priority.NORMAL, List.of(), List.of(), null, null,
                true, null);
    }
}
