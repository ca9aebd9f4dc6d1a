package dev.keypool.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

import dev.keypool.alert.AlertRule;
import dev.keypool.alert.AlertThrottle;
import dev.keypool.alert.LocalAlertThrottle;
import io.lettuce.core.ScriptOutputType;

/**
 * The alert throttle the instances share through Redis (design §11): an alert of a rule and subject is sent by the
 * first instance to claim {@code <prefix>:alert:<rule>:<subject>} within the period, and by no other. The subjects hold
 * channel and tenant names and key fingerprints only, never a key or a token.
 *
 * <p>This instance's own throttle looks first, so an instance asks Redis once per alert it would send alone. The claim
 * compares the claiming instance's clock with the time the last claim was made: the period is measured by the
 * instances' clocks, as alone; the key's expiry in Redis only clears it away. Redis down: the instance decides alone.
 */
public final class RedisAlertThrottle implements AlertThrottle {

    /**
     * KEYS[1] the rule and subject's key, ARGV[1] now (ms since the epoch, by the claiming instance's clock), ARGV[2]
     * the period in ms: 1 = claimed (the key now holds ARGV[1] for a period), 0 = claimed within the period already.
     */
    private static final RedisScript CLAIM = RedisScript.of("alert-claim", """
            local last = redis.call('GET', KEYS[1])
            if last and tonumber(ARGV[1]) < tonumber(last) + tonumber(ARGV[2]) then
              return 0
            end
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            return 1
            """);

    private final RedisLink redis;
    private final AlertThrottle local;
    private final Duration period;
    private final Clock clock;

    public RedisAlertThrottle(RedisLink redis, Duration period, Clock clock) {
        this.redis = redis;
        this.local = new LocalAlertThrottle(period, clock);
        this.period = period;
        this.clock = clock;
    }

    @Override
    public boolean allow(AlertRule rule, String subject) {
        if (!local.allow(rule, subject)) {
            return false;
        }
        Optional<Long> claimed = redis.eval(CLAIM, ScriptOutputType.INTEGER,
                new String[] {redis.key("alert", rule.configName(), subject)},
                Long.toString(clock.millis()), Long.toString(period.toMillis()));
        return claimed.map(c -> c == 1L).orElse(true);
    }
}
