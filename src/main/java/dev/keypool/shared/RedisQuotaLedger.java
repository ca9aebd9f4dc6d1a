package dev.keypool.shared;

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
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;

/**
 * One key's quota windows counted in Redis, shared by every gateway instance (SPEC §11), so that N instances together
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
     */
    private static final String QUOTA_FUNCTION = """
            local function quota_take(K, A)
              local mode = ARGV[A + 1]
              local second = math.floor(tonumber(ARGV[A + 2]) / 1000)
              local n = #KEYS - K
              local function read(i)
                local kind = ARGV[A + 3 + (i - 1) * 5]
                if kind == 's' then
                  local flat = redis.call('HGETALL', KEYS[K + i])
                  local total, buckets = 0, {}
                  for j = 1, #flat, 2 do
                    local s = tonumber(flat[j])
                    if s < second - %1$d then
                      redis.call('HDEL', KEYS[K + i], flat[j])
                    else
                      local a = tonumber(flat[j + 1])
                      total = total + a
                      buckets[#buckets + 1] = s
                      buckets[#buckets + 1] = a
                    end
                  end
                  return math.max(0, total), buckets
                end
                local total = math.max(0, tonumber(redis.call('GET', KEYS[K + i]) or '0'))
                return total, {total}
              end
              local function answer(flag)
                local out = {flag}
                for i = 1, n do
                  local _, use = read(i)
                  out[#out + 1] = use
                end
                return out
              end
              local used = {}
              for i = 1, n do
                used[i] = read(i)
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
              local now = {}
              for i = 1, n do
                local base = A + 3 + (i - 1) * 5
                local add = 0
                if mode == 'merge' and ARGV[base] == 's' then
                  for s, a in string.gmatch(ARGV[base + 1], '(%%d+):(-?%%d+)') do
                    local held = tonumber(redis.call('HGET', KEYS[K + i], s) or '0')
                    if tonumber(s) >= second - %1$d and tonumber(a) > held then
                      redis.call('HSET', KEYS[K + i], s, a)
                      redis.call('PEXPIRE', KEYS[K + i], ARGV[base + 4])
                    end
                  end
                elseif mode == 'merge' then
                  add = tonumber(ARGV[base + 1]) - used[i]
                else
                  add = tonumber(ARGV[base + 1])
                end
                if add > 0 then
                  if ARGV[base] == 's' then
                    now[i] = redis.call('HINCRBY', KEYS[K + i], second, add)
                  else
                    now[i] = redis.call('INCRBY', KEYS[K + i], add)
                  end
                  redis.call('PEXPIRE', KEYS[K + i], ARGV[base + 4])
                end
              end
              if mode == 'take' then
                -- taken: only this second of a sliding window (the earlier ones came with earlier calls, or come with a
                -- refusal), so that the answer stays short however busy the key is
                local out = {1}
                for i = 1, n do
                  if ARGV[A + 3 + (i - 1) * 5] == 's' then
                    out[#out + 1] = {second, now[i] or tonumber(redis.call('HGET', KEYS[K + i], second) or '0')}
                  else
                    out[#out + 1] = {now[i] or used[i]}
                  end
                end
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
            local verdict = tenant_admit(false)
            if verdict[1] ~= 0 then
              return {verdict}
            end
            local answer = quota_take(5, 12)
            if answer[1] == 1 then
              verdict = tenant_admit(true)
            end
            return {verdict, answer}
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
        Call call = call("take", now, windows);
        String[] tenantKeys = tenant.keys(now);
        String[] tenantArgs = tenant.args(now);
        String[] keys = new String[tenantKeys.length + call.keys().length];
        System.arraycopy(tenantKeys, 0, keys, 0, tenantKeys.length);
        System.arraycopy(call.keys(), 0, keys, tenantKeys.length, call.keys().length);
        List<String> args = new ArrayList<>(List.of(tenantArgs));
        args.addAll(call.args());
        Optional<List<Object>> reply = redis.eval(QUOTA_WITH_TENANT, ScriptOutputType.MULTI, keys, args.toArray(String[]::new));
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
        redis.send(commands -> {
            RedisFuture<?> last = null;
            for (Map.Entry<String, Map<String, Long>> key : due.entrySet()) {
                for (Map.Entry<String, Long> field : key.getValue().entrySet()) {
                    if (field.getValue() != 0) {
                        last = field.getKey().isEmpty() ? commands.incrby(key.getKey(), field.getValue())
                                : commands.hincrby(key.getKey(), field.getKey(), field.getValue());
                    }
                }
            }
            return last;
        });
    }

    private Optional<Answer> run(String mode, Instant now, List<WindowAmount> windows) {
        if (windows.isEmpty()) {
            return Optional.empty();
        }
        Call call = call(mode, now, windows);
        Optional<List<Object>> reply = redis.eval(QUOTA, ScriptOutputType.MULTI, call.keys(), call.args().toArray(String[]::new));
        return reply.map(r -> answer(r, windows));
    }

    /** The keys and arguments of {@code quota_take} for these windows. */
    private record Call(String[] keys, List<String> args) {
    }

    private Call call(String mode, Instant now, List<WindowAmount> windows) {
        String[] keys = new String[windows.size()];
        List<String> args = new ArrayList<>(2 + 5 * windows.size());
        args.add(mode);
        args.add(Long.toString(now.toEpochMilli()));
        for (int i = 0; i < windows.size(); i++) {
            WindowAmount w = windows.get(i);
            keys[i] = key(w);
            args.add(w.period() == null ? "s" : "c");
            args.add(mode.equals("merge") && w.period() == null ? seconds(w.buckets()) : Long.toString(w.amount()));
            args.add(Double.toString(w.cap()));
            args.add(Double.toString(w.stop()));
            args.add(Long.toString(w.period() == null ? SLIDING_TTL_MILLIS
                    : Duration.between(now, w.periodEnd()).plusDays(1).toMillis()));
        }
        return new Call(keys, args);
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
