package dev.keypool.camel;

import java.time.Clock;

import dev.keypool.camel.pipeline.RequestLog;
import dev.keypool.camel.pipeline.ResponseCaching;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.redis.RedisAnswerStore;
import dev.keypool.redis.RedisLink;
import dev.keypool.routing.AnswerStore;
import dev.keypool.routing.LocalAnswerStore;
import dev.keypool.routing.ModelGroups;
import dev.keypool.routing.ResponseCache;
import org.apache.camel.CamelContext;

/**
 * The response cache of the model groups that set {@code cache:} (design §16): a Caffeine cache in this process, bound
 * as {@code responseCacheEntries} so that Camel's {@code caffeine-cache:responseCacheEntries} endpoint sees the same
 * entries, and with {@code redis:} the store the instances share; the {@code responseCache} bean holds the route steps.
 */
final class ResponseCacheBeans {

    private ResponseCacheBeans() {
    }

    static void bind(CamelContext context, ModelGroups groups, RedisLink redis, GatewayMetrics metrics,
            RequestLog requestLog, Clock clock) {
        LocalAnswerStore local = new LocalAnswerStore(Wiring.longSetting(context, "keypool.response-cache.max-bytes"), clock);
        context.getRegistry().bind("responseCacheEntries", local.cache());
        AnswerStore shared = redis == null ? AnswerStore.NONE : new RedisAnswerStore(redis);
        ResponseCache cache = new ResponseCache(local, shared, clock,
                Wiring.intSetting(context, "keypool.response-cache.max-entry-bytes"));
        context.getRegistry().bind("responseCache", new ResponseCaching(cache, groups, metrics, requestLog));
    }
}
