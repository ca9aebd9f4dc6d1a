package dev.keypool.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.LongSupplier;

import dev.keypool.quota.KeyQuota;
import dev.keypool.tenant.LocalTenantLimits;
import dev.keypool.tenant.RateLimits;
import dev.keypool.tenant.TenantAdmission;
import dev.keypool.tenant.TenantLimits;
import io.lettuce.core.ScriptOutputType;

/**
 * {@link TenantLimits} shared by every gateway instance through Redis (design §7, §11): a tenant's rpm bucket, tokens per
 * minute, requests per day and daily / monthly budget are checked and taken in one Lua script call per request
 * ({@code tenant-admit.lua}), all or nothing, so that N instances together admit what one would. Settling a request
 * (its real tokens, its cost) is a write nobody waits for.
 * <p>
 * Redis keys hold the tenant's name, never its token. Each instance counts in fields of its own, so that when Redis
 * answers again, after being down or emptied, the instance writes back what it counted ({@code tenant-write-back.lua})
 * without counting anything twice. While Redis is away the tenant's {@link LocalTenantLimits} in this instance decide.
 * Thread-safe.
 */
public final class RedisTenantLimits implements TenantLimits {

    /** {@code tenant-admit.lua}: the Lua function {@code tenant_admit(take)}, for this script and the quota ledger's. */
    static final String ADMIT_FUNCTION = lua("tenant-admit");
    static final RedisScript ADMIT = RedisScript.of("tenant-admit", ADMIT_FUNCTION + "return (tenant_admit(ARGV[12] == 'take'))\n");
    static final RedisScript WRITE_BACK = RedisScript.of("tenant-write-back", lua("tenant-write-back"));

    /** The bucket is counted in 1/60000 request in Redis: rpm units flow in per millisecond. */
    private static final long UNIT = 60_000;
    private static final double MICROS = 1_000_000;

    private final String name;
    private final Integer rpm;
    private final int burst;
    private final Long tpm;
    private final Integer rpd;
    private final Long dailyMicros;
    private final Long monthlyMicros;
    private final RedisLink redis;
    private final Clock clock;
    private final LocalTenantLimits local;
    /** Taken over by the limits that replace these after a reload ({@link #continueFrom}), which then alone write it back. */
    private volatile TenantContribution mine = new TenantContribution();
    private volatile boolean replaced;
    /** Admissions the local limits made (Redis away): settled there too. */
    private final Set<Admitted> admittedLocally = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

    private RedisTenantLimits(String name, Integer rpm, int burst, Long tpm, Integer rpd, Double budgetDaily,
                              Double budgetMonthly, RedisLink redis, Clock clock) {
        this.name = name;
        this.rpm = rpm;
        this.burst = burst;
        this.tpm = tpm;
        this.rpd = rpd;
        this.dailyMicros = budgetDaily == null ? null : Math.round(budgetDaily * MICROS);
        this.monthlyMicros = budgetMonthly == null ? null : Math.round(budgetMonthly * MICROS);
        this.redis = redis;
        this.clock = clock;
        this.local = new LocalTenantLimits(name, rpm, burst, tpm, rpd, budgetDaily, budgetMonthly, clock);
    }

    /**
     * A tenant's limits shared through {@code redis}, with the same meaning as {@link LocalTenantLimits}'s; they write
     * this instance's counts back whenever Redis (re)connects.
     */
    public static RedisTenantLimits shared(String name, Integer rpm, int burst, Long tpm, Integer rpd, Double budgetDaily,
                                           Double budgetMonthly, RedisLink redis, Clock clock) {
        RedisTenantLimits limits = new RedisTenantLimits(name, rpm, burst, tpm, rpd, budgetDaily, budgetMonthly, redis, clock);
        redis.onConnect(limits::writeBack);
        return limits;
    }

    @Override
    public Decision admit(LongSupplier estimatedTokens) {
        if (!limited()) {
            // nothing to share before the request: no round trip (its spending is still shared, for status)
            return local.admit(estimatedTokens);
        }
        Instant now = clock.instant();
        long tokens = tpm == null ? 0 : estimatedTokens.getAsLong();
        Optional<Verdict> verdict = run(now, tokens, true);
        if (verdict.isEmpty()) {
            Decision decision = local.admit(() -> tokens);
            if (decision instanceof Admitted admitted) {
                admittedLocally.add(admitted);
                mine.took(now, tokens, true);
            }
            return decision;
        }
        return decision(now, tokens, verdict.get());
    }

    /**
     * Pending for a limited tenant: its admission goes to Redis with the request's first key reservation
     * ({@link RedisQuotaLedger}), in the same script call, or alone by {@link #admit}.
     */
    @Override
    public TenantAdmission admission(LongSupplier estimatedTokens) {
        if (!limited()) {
            return TenantAdmission.decided(local.admit(estimatedTokens));
        }
        return new Shared(tpm == null ? 0 : estimatedTokens.getAsLong());
    }

    /** A limited tenant's admission of one request, pending until a key's reservation carries it to Redis. */
    final class Shared extends TenantAdmission {

        private final long tokens;

        private Shared(long tokens) {
            super(() -> admit(() -> tokens));
            this.tokens = tokens;
        }

        /** Whether this admission is counted in {@code link}'s Redis. */
        boolean on(RedisLink link) {
            return redis == link;
        }

        /** The admit script's keys and arguments for the request at {@code now}, taking it. */
        ScriptCall call(Instant now) {
            return RedisTenantLimits.this.call(now, tokens, true);
        }

        /** What the admit script answered with a key's reservation: refused, or taken with the key. */
        void decide(Instant now, List<Object> answer) {
            decide(RedisTenantLimits.this.decision(now, tokens, verdict(answer)));
        }
    }

    /** The decision a verdict of Redis makes; an admitted request is counted as this instance's. */
    private Decision decision(Instant now, long tokens, Verdict v) {
        RateLimits rateLimits = rateLimits(v);
        Duration retryAfter = Duration.ofMillis(Math.max(0, v.retryAfterMillis()));
        return switch ((int) v.refusal()) {
            case Verdict.ADMITTED -> {
                mine.took(now, tokens, false);
                yield new Admitted(rateLimits, tpm == null ? null : new KeyQuota.Reservation(now, tokens));
            }
            case Verdict.BUCKET -> new Refused(Refusal.RATE_LIMITED, "Tenant " + name + " is over its rate limit of "
                    + rpm + " requests per minute (burst " + burst + ")", retryAfter, rateLimits);
            case Verdict.TOKENS_PER_MINUTE -> new Refused(Refusal.RATE_LIMITED, "Tenant " + name
                    + " is over its token limit of " + tpm + " tokens per minute"
                    + (tokens > tpm ? " (the request alone, " + tokens + " tokens, is larger)" : ""), retryAfter, rateLimits);
            case Verdict.REQUESTS_PER_DAY -> new Refused(Refusal.RATE_LIMITED, "Tenant " + name + " is over its limit of "
                    + rpd + " requests per day", retryAfter, rateLimits);
            default -> new Refused(Refusal.BUDGET_EXCEEDED, "Tenant " + name + " has used up its budget ("
                    + budgetText(v.spentTodayMicros(), v.spentThisMonthMicros()) + "); it resets at " + now.plus(retryAfter),
                    retryAfter, rateLimits);
        };
    }

    /**
     * Corrects the request's tokens and spends its cost in Redis without waiting (lost while Redis is away, then
     * written back with the rest of this instance's counts), and in this instance's local limits.
     */
    @Override
    public void settle(Admitted admitted, OptionalLong usedTokens, boolean answered, double costUsd) {
        Instant now = clock.instant();
        // the local budget follows this instance's spending, so that it still knows it when Redis goes away
        local.settle(admittedLocally.remove(admitted) ? admitted : new Admitted(admitted.rateLimits(), null),
                usedTokens, answered, costUsd);
        KeyQuota.Reservation reservation = admitted.reservation();
        long delta = reservation == null ? 0 : usedTokens.isPresent() ? usedTokens.getAsLong() - reservation.tokens()
                : answered ? 0 : -reservation.tokens();
        boolean correct = delta != 0 && mine.inWindow(reservation.at(), now);
        long micros = costUsd > 0 ? Math.round(costUsd * MICROS) : 0;
        if (correct) {
            mine.corrected(reservation.at(), now, delta);
        }
        if (micros > 0) {
            mine.spent(now, micros);
        }
        if (!correct && micros == 0) {
            return;
        }
        Keys keys = keys(now);
        redis.send(async -> {
            if (correct) {
                async.hincrby(keys.tpm(), reservation.at().getEpochSecond() + "|" + redis.instance(), delta);
            }
            if (micros == 0) {
                return async.pexpire(keys.tpm(), Duration.ofSeconds(TenantContribution.WINDOW_SECONDS + 2));
            }
            async.hincrby(keys.spentToday(), redis.instance(), micros);
            async.pexpire(keys.spentToday(), Duration.ofMillis(keys.dayEnd() - now.toEpochMilli()).plusDays(1));
            async.hincrby(keys.spentThisMonth(), redis.instance(), micros);
            return async.pexpire(keys.spentThisMonth(), Duration.ofMillis(keys.monthEnd() - now.toEpochMilli()).plusDays(1));
        });
    }

    /** The shared limits now, taking nothing; this instance's local ones while Redis is away. */
    @Override
    public RateLimits rateLimits() {
        return run(clock.instant(), 0, false).map(this::rateLimits).orElseGet(local::rateLimits);
    }

    @Override
    public double spentToday() {
        return spent(keys(clock.instant()).spentToday()).orElseGet(local::spentToday);
    }

    @Override
    public double spentThisMonth() {
        return spent(keys(clock.instant()).spentThisMonth()).orElseGet(local::spentThisMonth);
    }

    /**
     * The counts in Redis are the tenant's, by name, and go on by themselves; this instance's share of them (written
     * back when Redis returns) and its local fallback's counts go on here. Requests still in flight on {@code previous}
     * settle into the same share.
     */
    @Override
    public void continueFrom(TenantLimits previous) {
        if (previous instanceof RedisTenantLimits old) {
            mine = old.mine;
            old.replaced = true;
            local.continueFrom(old.local);
        }
    }

    /** Writes what this instance counted to Redis: run when Redis connects, answers again, or came back empty. */
    void writeBack() {
        if (replaced) {
            return;
        }
        Instant now = clock.instant();
        TenantContribution.Snapshot counted = mine.snapshot(now);
        Keys keys = keys(now);
        List<String> args = new ArrayList<>(List.of(String.valueOf(now.toEpochMilli()), limit(rpm),
                String.valueOf(burst), redis.instance(), String.valueOf(keys.dayEnd()), String.valueOf(keys.monthEnd()),
                String.valueOf(counted.requestsToday()), String.valueOf(counted.spentTodayMicros()),
                String.valueOf(counted.spentThisMonthMicros()), String.valueOf(counted.requestsOffline())));
        counted.tokensPerSecond().forEach((second, tokens) -> {
            args.add(String.valueOf(second));
            args.add(String.valueOf(tokens));
        });
        Optional<Long> written = redis.eval(WRITE_BACK, ScriptOutputType.INTEGER, keys.all(), args.toArray(String[]::new));
        if (written.isPresent()) {
            mine.written(counted);
        }
    }

    private boolean limited() {
        return rpm != null || tpm != null || rpd != null || dailyMicros != null || monthlyMicros != null;
    }

    /** One call of the admit script; empty when Redis is away. */
    private Optional<Verdict> run(Instant now, long tokens, boolean take) {
        Optional<List<Object>> answer = call(now, tokens, take).eval(redis, ADMIT, ScriptOutputType.MULTI);
        return answer.map(RedisTenantLimits::verdict);
    }

    /** The admit script's keys and arguments (see its header). */
    private ScriptCall call(Instant now, long tokens, boolean take) {
        Keys keys = keys(now);
        return new ScriptCall(List.of(keys.all()), List.of(String.valueOf(now.toEpochMilli()), limit(rpm),
                String.valueOf(burst), limit(tpm), String.valueOf(tokens), limit(rpd), limit(dailyMicros),
                limit(monthlyMicros), redis.instance(), String.valueOf(keys.dayEnd()), String.valueOf(keys.monthEnd()),
                take ? "take" : "peek"));
    }

    private static Verdict verdict(List<Object> answer) {
        return new Verdict(answer.stream().mapToLong(v -> (Long) v).toArray());
    }

    private Optional<Double> spent(String key) {
        return redis.call(r -> r.hvals(key)).map(values -> values.stream().mapToLong(Long::parseLong).sum() / MICROS);
    }

    /** The tenant's keys in Redis, under its name, for the periods {@code now} is in. */
    private Keys keys(Instant now) {
        LocalDate today = now.atOffset(ZoneOffset.UTC).toLocalDate();
        YearMonth month = YearMonth.from(today);
        return new Keys(redis.key("tenant", name, "bucket"), redis.key("tenant", name, "tpm"),
                redis.key("tenant", name, "requests", today.toString()), redis.key("tenant", name, "spent", today.toString()),
                redis.key("tenant", name, "spent", month.toString()),
                today.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli(),
                month.plusMonths(1).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli());
    }

    private record Keys(String bucket, String tpm, String requestsToday, String spentToday, String spentThisMonth,
                        long dayEnd, long monthEnd) {
        String[] all() {
            return new String[] {bucket, tpm, requestsToday, spentToday, spentThisMonth};
        }
    }

    /** What the admit script answered (see its header). */
    private record Verdict(long[] values) {
        /** What {@link #refusal()} is: admitted, or refused by which limit (then anything else: the budget). */
        static final int ADMITTED = 0, BUCKET = 1, TOKENS_PER_MINUTE = 2, REQUESTS_PER_DAY = 3;

        long refusal() {
            return values[0];
        }

        long retryAfterMillis() {
            return values[1];
        }

        long spentTodayMicros() {
            return values[5];
        }

        long spentThisMonthMicros() {
            return values[6];
        }

        long bucketUnits() {
            return values[2];
        }

        long tokensUsed() {
            return values[3];
        }

        long windowEmptyInMillis() {
            return values[4];
        }
    }

    /** The x-ratelimit-* figures of a verdict: the bucket's whole requests and the time until it is full again. */
    private RateLimits rateLimits(Verdict v) {
        long units = v.bucketUnits();
        return new RateLimits(rpm == null ? null : rpm.longValue(), units / UNIT,
                rpm == null ? Duration.ZERO : Duration.ofMillis((burst * UNIT - units + rpm - 1) / Math.max(rpm, 1)),
                tpm, tpm == null ? 0 : Math.max(0, tpm - v.tokensUsed()), Duration.ofMillis(v.windowEmptyInMillis()));
    }

    private String budgetText(long spentToday, long spentThisMonth) {
        StringBuilder text = new StringBuilder();
        if (dailyMicros != null) {
            text.append(String.format(Locale.ROOT, "%.2f USD a day, %.4f spent today", dailyMicros / MICROS, spentToday / MICROS));
        }
        if (monthlyMicros != null) {
            text.append(text.isEmpty() ? "" : "; ").append(String.format(Locale.ROOT, "%.2f USD a month, %.4f spent this month",
                    monthlyMicros / MICROS, spentThisMonth / MICROS));
        }
        return text.toString();
    }

    private static String limit(Number limit) {
        return limit == null ? "-1" : String.valueOf(limit);
    }

    private static String lua(String name) {
        try (InputStream in = RedisTenantLimits.class.getResourceAsStream(name + ".lua")) {
            if (in == null) {
                throw new IllegalStateException(name + ".lua is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "RedisTenantLimits[" + name + "]";
    }
}
