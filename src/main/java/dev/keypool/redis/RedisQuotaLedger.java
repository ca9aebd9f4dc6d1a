package dev.keypool.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.keypool.gateway.Channels;
import dev.keypool.quota.CompanionTake;
import dev.keypool.quota.QuotaLedger;
import io.lettuce.core.ScriptOutputType;

/**
 * One key's quota windows counted in Redis, shared by every gateway instance (design §11), so that N instances together
 * never pass a key's limit. A sliding minute window is a hash of epoch second → amount ({@code
 * <prefix>:quota:<channel>:<fingerprint>:rpm}) with SlidingCounter's rule: an amount counts until its second is more
 * than 60 seconds behind. A day or month window is one counter per period ({@code …:rpd:2026-12-01}) that expires a
 * day after its period. A reservation is ONE script call that checks every window and takes the call in all of them,
 * or in none; corrections after the call are sent without waiting. Names hold the fingerprint, never the key.
 */
public final class RedisQuotaLedger implements QuotaLedger {

    /** How long a sliding window's hash outlives its last call: a minute and its partly elapsed second, and a margin. */
    private static final long SLIDING_TTL_MILLIS = Duration.ofSeconds(62).toMillis();
    private static final long WINDOW_SECONDS = 60;

    /**
     * The Lua function {@code quota_take(K, A)}: one key's windows are KEYS after the first K, and their arguments ARGV
     * after the first A. ARGV: mode (take | merge), now in ms, then per key: kind (s = sliding, c = calendar), amount,
     * cap, stop (-1: none), ttl in ms. take: refused (0) when any window's use + amount passes its cap or its use is at
     * stop; else every amount is added (1). merge: each window is raised to at least its amount; a sliding window's
     * amount is then its seconds, "second:amount,…", each raised to at least that. Answers the flag and each window's
     * use: a sliding window's {second, amount, …} pairs (after a take, only the current second's: a short answer
     * however busy the key), a calendar window's {total}.
     * <p>
     * A sliding window's hash also keeps {@code sum}, what its seconds add up to, and {@code from}, the oldest second it
     * may still hold: a call drops only the seconds that left the window since the last one, instead of reading all 60
     * (an HGETALL of a busy key's minute cost Redis ~25 µs per window and call).
     */
    private static final String QUOTA_FUNCTION = """
            local function quota_take(K, A)
              local mode = ARGV[A + 1]
              local second = math.floor(tonumber(ARGV[A + 2]) / 1000)
              local oldest = second - %1$d
              local n = #KEYS - K
              local function kind(i)
                return ARGV[A + 3 + (i - 1) * 5]
              end
              -- a sliding window's total once the seconds before oldest are gone; its first second still held, and
              -- whether the hash says so already
              local function trim(key)
                local meta = redis.call('HMGET', key, 'sum', 'from')
                local sum, from = tonumber(meta[1] or '0'), tonumber(meta[2] or oldest)
                local known = meta[2] ~= false
                if known and from >= oldest then
                  return sum, from, known
                end
                local gone = {}
                if known and oldest - from <= 2 * %1$d then
                  for s = from, oldest - 1 do
                    gone[#gone + 1] = s
                  end
                  local amounts = redis.call('HMGET', key, unpack(gone))
                  for j = 1, #gone do
                    if amounts[j] then
                      sum = sum - tonumber(amounts[j])
                    end
                  end
                else
                  -- new, written without sum and from (an older KeyPool), idle longer than its lifetime, or clocks far
                  -- apart: read it all once
                  sum = 0
                  local flat = redis.call('HGETALL', key)
                  if #flat == 0 then
                    return 0, oldest, false
                  end
                  for j = 1, #flat, 2 do
                    local s = tonumber(flat[j])
                    if s and s < oldest then
                      gone[#gone + 1] = flat[j]
                    elseif s then
                      sum = sum + tonumber(flat[j + 1])
                    end
                  end
                end
                if #gone > 0 then
                  redis.call('HDEL', key, unpack(gone))
                end
                redis.call('HSET', key, 'sum', sum, 'from', oldest)
                return sum, oldest, true
              end
              -- a sliding window's seconds still in it: {second, amount, ...}
              local function seconds(key)
                local flat, out = redis.call('HGETALL', key), {}
                for j = 1, #flat, 2 do
                  local s = tonumber(flat[j])
                  if s and s >= oldest then
                    out[#out + 1] = s
                    out[#out + 1] = tonumber(flat[j + 1])
                  end
                end
                return out
              end
              local used, first, known = {}, {}, {}
              for i = 1, n do
                if kind(i) == 's' then
                  local sum, from, held = trim(KEYS[K + i])
                  used[i], first[i], known[i] = math.max(0, sum), from, held
                else
                  used[i] = math.max(0, tonumber(redis.call('GET', KEYS[K + i]) or '0'))
                end
              end
              local function answer(flag)
                local out = {flag}
                for i = 1, n do
                  out[#out + 1] = kind(i) == 's' and seconds(KEYS[K + i]) or {used[i]}
                end
                return out
              end
              if mode == 'take' then
                for i = 1, n do
                  local base = A + 3 + (i - 1) * 5
                  local amount, cap, stop = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2]), tonumber(ARGV[base + 3])
                  if used[i] + amount > cap or (stop >= 0 and used[i] >= stop) then
                    return answer(0)
                  end
                end
              end
              -- this instance's second, or the window's first when another instance's clock is ahead and has dropped it
              local at = second
              local out = {1}
              for i = 1, n do
                local key, base = KEYS[K + i], A + 3 + (i - 1) * 5
                if kind(i) == 's' then
                  at = math.max(second, first[i])
                  local wrote = false
                  if mode == 'merge' then
                    for s, a in string.gmatch(ARGV[base + 1], '(%%d+):(-?%%d+)') do
                      local held = tonumber(redis.call('HGET', key, s) or '0')
                      if tonumber(s) >= first[i] and tonumber(a) > held then
                        redis.call('HSET', key, s, a)
                        redis.call('HINCRBY', key, 'sum', tonumber(a) - held)
                        wrote = true
                      end
                    end
                  elseif tonumber(ARGV[base + 1]) ~= 0 then
                    local amount = tonumber(ARGV[base + 1])
                    out[#out + 1] = {at, redis.call('HINCRBY', key, at, amount)}
                    redis.call('HINCRBY', key, 'sum', amount)
                    wrote = true
                  else
                    out[#out + 1] = {at, tonumber(redis.call('HGET', key, at) or '0')}
                  end
                  if wrote or known[i] then
                    if not known[i] then
                      redis.call('HSET', key, 'from', first[i])
                    end
                    redis.call('PEXPIRE', key, ARGV[base + 4])
                  end
                else
                  local add = mode == 'merge' and tonumber(ARGV[base + 1]) - used[i] or tonumber(ARGV[base + 1])
                  if add > 0 then
                    used[i] = redis.call('INCRBY', key, add)
                    redis.call('PEXPIRE', key, ARGV[base + 4])
                  end
                  out[#out + 1] = {used[i]}
                end
              end
              if mode == 'take' then
                -- taken: only this second of a sliding window (the earlier ones came with earlier calls, or come with a
                -- refusal), so that the answer stays short however busy the key is
                return out
              end
              return answer(1)
            end
            """.formatted(WINDOW_SECONDS);

    /** A reservation or a write-back of one key's windows: {@code quota_take} on all KEYS and ARGV. */
    static final RedisScript QUOTA = RedisScript.of("quota-take", QUOTA_FUNCTION + "return quota_take(0, 0)\n");

    /**
     * A reservation that also decides a tenant's admission ({@link RedisTenantLimits}), all or nothing: KEYS and ARGV
     * are the tenant's 5 and 12 (see tenant-admit.lua), then the key's. Answers {tenant verdict} when the tenant
     * refuses (nothing taken), else {tenant verdict, key answer}; the tenant is taken only with the key.
     */
    static final RedisScript QUOTA_WITH_TENANT = RedisScript.of("quota-take-with-tenant", RedisTenantLimits.ADMIT_FUNCTION
            + QUOTA_FUNCTION + """
            local verdict, take_tenant = tenant_admit(false)
            if verdict[1] ~= 0 then
              return {verdict}
            end
            local answer = quota_take(5, 12)
            if answer[1] == 1 then
              verdict = take_tenant()
            end
            return {verdict, answer}
            """);

    /**
     * Corrections of calls that are over ({@link #adjust}): per KEY, ARGV holds a field ("" for a calendar counter) and
     * an amount. A sliding window's second is corrected, with its sum, only while the window still holds it; a window
     * gone meanwhile (expired, or Redis emptied) is left alone rather than made again without its expiry.
     */
    static final RedisScript SETTLE = RedisScript.of("quota-settle", """
            for i = 1, #KEYS do
              local key, field, amount = KEYS[i], ARGV[2 * i - 1], tonumber(ARGV[2 * i])
              if redis.call('EXISTS', key) == 1 then
                if field == '' then
                  redis.call('INCRBY', key, amount)
                elseif tonumber(field) >= tonumber(redis.call('HGET', key, 'from') or field) then
                  redis.call('HINCRBY', key, field, amount)
                  redis.call('HINCRBY', key, 'sum', amount)
                end
              end
            end
            return #KEYS
            """);

    /** How long settles wait to be sent together. */
    static final Duration SETTLE_DELAY = Duration.ofMillis(20);
    /** Sends every key's gathered settles; daemon: nothing to finish at exit but writes nobody waits for. */
    private static final ScheduledExecutorService SETTLES = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "keypool-quota-settles");
        thread.setDaemon(true);
        return thread;
    });

    private final RedisLink redis;
    private final String channel;
    private final String fingerprint;
    /** Redis key → field ("" for a calendar counter) → amount, not sent yet. Guarded by this. */
    private Map<String, Map<String, Long>> pending = new LinkedHashMap<>();

    public RedisQuotaLedger(RedisLink redis, String channel, String fingerprint) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.channel = Objects.requireNonNull(channel, "channel");
        this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
    }

    /** Every key's ledger on this Redis. */
    public static Factory on(RedisLink redis) {
        return (channel, fingerprint) -> new RedisQuotaLedger(redis, channel, fingerprint);
    }

    /**
     * Every (re)connection writes back the use of every key of {@code channels} and mirrors the shared use: the
     * counts of an instance that went on alone, or of a Redis that lost them, are merged (the higher wins).
     */
    public static void writeBackOnConnect(RedisLink redis, Channels channels) {
        redis.onConnect(() -> channels.all().forEach(channel ->
                channel.pool().keys().forEach(key -> channel.pool().quotaOf(key).shareUse())));
    }

    /**
     * A pending admission of a tenant shared on the same Redis ({@link RedisTenantLimits}) is decided in the same
     * script call: the tenant first, then the key, each taken only if both have room.
     */
    @Override
    public Optional<Answer> take(Instant now, List<WindowAmount> windows, CompanionTake companion) {
        if (windows.isEmpty() || !(companion instanceof RedisTenantLimits.Shared tenant) || tenant.decided() || !tenant.on(redis)) {
            return run("take", now, windows);
        }
        Optional<List<Object>> reply = tenant.call(now).then(call("take", now, windows))
                .eval(redis, QUOTA_WITH_TENANT, ScriptOutputType.MULTI);
        if (reply.isEmpty()) {
            return Optional.empty();
        }
        @SuppressWarnings("unchecked")
        List<Object> verdict = (List<Object>) reply.get().get(0);
        if (reply.get().size() == 1) {
            tenant.decide(now, verdict);   // refused: nothing taken, the key's use not read
            return Optional.of(new Answer(false, List.of()));
        }
        @SuppressWarnings("unchecked")
        Answer answer = answer((List<Object>) reply.get().get(1), windows);
        if (answer.taken()) {
            tenant.decide(now, verdict);
        }
        return Optional.of(answer);
    }

    @Override
    public Optional<Answer> writeBack(Instant now, List<WindowAmount> windows) {
        return run("merge", now, windows);
    }

    /**
     * Corrections are gathered for {@link #SETTLE_DELAY} and sent together: a busy key's settles then cost Redis and
     * this instance one exchange per delay instead of one per call (they cost the request nothing either way).
     */
    @Override
    public void adjust(Instant reservedAt, Instant now, List<WindowAmount> windows) {
        long second = reservedAt.getEpochSecond();
        List<WindowAmount> changes = windows.stream().filter(w -> w.amount() != 0
                && (w.period() != null || second >= now.getEpochSecond() - WINDOW_SECONDS)).toList();
        if (changes.isEmpty()) {
            return;
        }
        boolean first;
        synchronized (this) {
            first = pending.isEmpty();
            for (WindowAmount w : changes) {
                // a calendar counter has no field: INCRBY
                pending.computeIfAbsent(key(w), k -> new LinkedHashMap<>())
                        .merge(w.period() == null ? Long.toString(second) : "", w.amount(), Long::sum);
            }
        }
        if (first) {
            SETTLES.schedule(this::sendSettles, SETTLE_DELAY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void sendSettles() {
        Map<String, Map<String, Long>> due;
        synchronized (this) {
            due = pending;
            pending = new LinkedHashMap<>();
        }
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        due.forEach((key, fields) -> fields.forEach((field, amount) -> {
            if (amount != 0) {
                keys.add(key);
                args.add(field);
                args.add(Long.toString(amount));
            }
        }));
        if (!keys.isEmpty()) {
            // on the settle thread: nobody waits for it
            redis.eval(SETTLE, ScriptOutputType.INTEGER, keys.toArray(String[]::new), args.toArray(String[]::new));
        }
    }

    private Optional<Answer> run(String mode, Instant now, List<WindowAmount> windows) {
        if (windows.isEmpty()) {
            return Optional.empty();
        }
        Optional<List<Object>> reply = call(mode, now, windows).eval(redis, QUOTA, ScriptOutputType.MULTI);
        return reply.map(r -> answer(r, windows));
    }

    /** The keys and arguments of {@code quota_take} for these windows. */
    private ScriptCall call(String mode, Instant now, List<WindowAmount> windows) {
        List<String> keys = new ArrayList<>(windows.size());
        List<String> args = new ArrayList<>(2 + 5 * windows.size());
        args.add(mode);
        args.add(Long.toString(now.toEpochMilli()));
        for (int i = 0; i < windows.size(); i++) {
            WindowAmount w = windows.get(i);
            keys.add(key(w));
            args.add(w.period() == null ? "s" : "c");
            args.add(mode.equals("merge") && w.period() == null ? seconds(w.buckets()) : Long.toString(w.amount()));
            args.add(Double.toString(w.cap()));
            args.add(Double.toString(w.stop()));
            args.add(Long.toString(w.period() == null ? SLIDING_TTL_MILLIS
                    : Duration.between(now, w.periodEnd()).plusDays(1).toMillis()));
        }
        return new ScriptCall(keys, args);
    }

    /** A sliding window's seconds as the script reads them: {@code second:amount,…}. */
    private static String seconds(Map<Long, Long> buckets) {
        StringBuilder text = new StringBuilder();
        buckets.forEach((second, amount) -> text.append(text.isEmpty() ? "" : ",").append(second).append(':').append(amount));
        return text.toString();
    }

    private static Answer answer(List<Object> reply, List<WindowAmount> windows) {
        List<Use> use = new ArrayList<>();
        for (int i = 0; i < windows.size(); i++) {
            List<?> values = (List<?>) reply.get(i + 1);
            if (windows.get(i).period() != null) {
                use.add(new Use(((Number) values.get(0)).longValue(), Map.of()));
                continue;
            }
            Map<Long, Long> buckets = new LinkedHashMap<>();
            long total = 0;
            for (int j = 0; j + 1 < values.size(); j += 2) {
                long amount = ((Number) values.get(j + 1)).longValue();
                buckets.merge(((Number) values.get(j)).longValue(), amount, Long::sum);
                total += amount;
            }
            use.add(new Use(Math.max(0, total), buckets));
        }
        return new Answer(((Number) reply.get(0)).longValue() == 1, use);
    }

    private String key(WindowAmount w) {
        return w.period() == null ? redis.key("quota", channel, fingerprint, w.window().configName())
                : redis.key("quota", channel, fingerprint, w.window().configName(), w.period().toString());
    }
}
