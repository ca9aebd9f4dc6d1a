package dev.keypool.camel;

import java.time.Clock;

import dev.keypool.config.GatewayConfig;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.redis.RedisLink;
import dev.keypool.redis.RedisQuotaLedger;
import dev.keypool.redis.SharedKeyStates;
import dev.keypool.redis.SharedState;
import org.apache.camel.CamelContext;

/**
 * The Redis other gateway instances share state through (design §11), connected once every shared store has said what
 * it writes back; without {@code redis:} each store is the local one.
 */
final class SharedStateBeans {

    private SharedStateBeans() {
    }

    /** The link to Redis, null without {@code redis:}; bound as {@code sharedState} for the shared-state-watch route. */
    static RedisLink link(CamelContext context, GatewayConfig config, GatewayMetrics metrics) {
        RedisLink redis = config.redis() == null ? null : new RedisLink(config.redis());
        context.getRegistry().bind("sharedState", redis == null ? SharedState.LOCAL : redis);
        if (redis != null) {
            context.getRegistry().bind("redisLink", redis);
            Wiring.closeOnStop(context, redis::close);
            // the time spent alone, Redis unreachable (also the redisAlone alert, AlertBeans)
            metrics.sharedState(redis::aloneInTotal, redis::aloneFor);
        }
        return redis;
    }

    /** Once every bean is bound: key states and quota use shared with the other instances, read before any traffic. */
    static void connect(RedisLink redis, ChannelBeans channels, Clock clock) {
        if (redis == null) {
            return;
        }
        // written back and read on every (re)connection
        channels.stateListeners().add(new SharedKeyStates(redis, channels.all(), clock));
        RedisQuotaLedger.writeBackOnConnect(redis, channels.all());
        // when Redis is not there yet, the shared-state-watch route keeps trying
        redis.check();
    }
}
