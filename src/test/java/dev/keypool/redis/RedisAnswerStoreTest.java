package dev.keypool.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.keypool.config.RedisConfig;
import dev.keypool.routing.CachePolicy;
import dev.keypool.routing.CachedAnswer;
import dev.keypool.routing.LocalAnswerStore;
import dev.keypool.routing.ResponseCache;
import dev.keypool.testing.MutableClock;
import dev.keypool.testing.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The response cache shared through a real redis-server: an answer one instance kept answers another instance's
 * identical request, the Redis key is a hash under the prefix, the entry expires with ttl + staleFor, and a lost
 * Redis is a miss, not an error.
 */
@Tag("slow")
class RedisAnswerStoreTest {

    private static final CachePolicy POLICY = new CachePolicy(Duration.ofMinutes(1), CachePolicy.When.DETERMINISTIC,
            Duration.ofMinutes(10), false);
    private static final byte[] ANSWER = "{\"choices\":[{\"message\":{\"content\":\"4\"}}]}".getBytes(StandardCharsets.UTF_8);

    private final RedisServer server = RedisServer.start();
    private final MutableClock clock = new MutableClock();
    private final RedisLink linkA = new RedisLink(new RedisConfig(server.url(), "test", Duration.ofMillis(200)));
    private final RedisLink linkB = new RedisLink(new RedisConfig(server.url(), "test", Duration.ofMillis(200)));

    @AfterEach
    void stop() {
        linkA.close();
        linkB.close();
        server.close();
    }

    private ResponseCache instance(RedisLink link) {
        link.check();
        return new ResponseCache(new LocalAnswerStore(1 << 20, clock), new RedisAnswerStore(link), clock, 1024);
    }

    @Test
    void should_answer_another_instance_from_the_entry_one_instance_kept() {
        ResponseCache a = instance(linkA);
        ResponseCache b = instance(linkB);
        String key = ResponseCache.key("tenant:team-a", "{\"model\":\"g\"}".getBytes(StandardCharsets.UTF_8));

        a.store(key, ANSWER, POLICY);

        await().atMost(Duration.ofSeconds(2)).until(() -> server.commands().exists("test:cache:" + key) == 1);
        assertThat(b.fresh(key, POLICY)).map(CachedAnswer::body).contains(ANSWER);
        long ttlMs = server.commands().pttl("test:cache:" + key);
        assertThat(ttlMs).isBetween(Duration.ofMinutes(10).toMillis(), POLICY.keepFor().toMillis());
        // the key holds no tenant name and no prompt, the value only the answer
        assertThat(server.dump().keySet()).allSatisfy(k -> assertThat(k).doesNotContain("team-a"));
    }

    @Test
    void should_miss_while_redis_is_down() {
        ResponseCache b = instance(linkB);
        server.kill();

        assertThat(b.fresh("0".repeat(64), POLICY)).isEmpty();
    }
}
