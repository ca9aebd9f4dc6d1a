package dev.keypool.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.keypool.config.RedisConfig;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.RedisServer;
import io.lettuce.core.ScriptOutputType;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The link to a real redis-server: calls, scripts, pub/sub between two instances, and Redis lost and found again. */
@Tag("slow")
class RedisLinkTest {

    private final LogCapture logs = LogCapture.of(RedisLink.class);
    private final RedisServer server = RedisServer.start();
    private final List<RedisLink> links = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        links.forEach(RedisLink::close);
        server.close();
        logs.close();
    }

    @Test
    void should_run_commands_and_scripts_under_the_prefix() {
        RedisLink link = link(server.url());
        link.check();

        assertThat(link.up()).isTrue();
        link.call(redis -> redis.set(link.key("a", "b"), "1"));
        assertThat(server.commands().get("test:a:b")).isEqualTo("1");
        RedisScript incr = RedisScript.of("incr", "return redis.call('INCRBY', KEYS[1], ARGV[1])");
        assertThat(link.<Long>eval(incr, ScriptOutputType.INTEGER, new String[] {link.key("n")}, "5")).contains(5L);
        // a Redis that forgot its scripts (a restart) is given the script again
        server.commands().scriptFlush();
        assertThat(link.<Long>eval(incr, ScriptOutputType.INTEGER, new String[] {link.key("n")}, "2")).contains(7L);
    }

    @Test
    void should_tell_the_other_instances_and_not_itself() {
        RedisLink a = link(server.url());
        RedisLink b = link(server.url());
        List<String> heardByA = new CopyOnWriteArrayList<>();
        List<String> heardByB = new CopyOnWriteArrayList<>();
        a.subscribe("keys", heardByA::add);
        b.subscribe("keys", heardByB::add);
        a.check();
        b.check();

        a.publish("keys", "3f2a COOLING");

        await().atMost(Duration.ofMillis(100)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2)).until(() -> heardByB.contains("3f2a COOLING"));
        assertThat(heardByA).isEmpty();
    }

    @Test
    void should_go_on_without_redis_and_write_back_when_it_returns() {
        RedisLink link = link(server.url());
        AtomicInteger writeBacks = new AtomicInteger();
        link.onConnect(() -> link.call(redis -> redis.set(link.key("state"), "mine" + writeBacks.incrementAndGet())));
        link.check();
        assertThat(writeBacks).hasValue(1);

        server.kill();
        assertThat(link.call(redis -> redis.get(link.key("state")))).isEmpty();
        assertThat(link.up()).isFalse();
        // nothing is tried while down: no second warning, whatever is asked
        assertThat(link.call(redis -> redis.get(link.key("state")))).isEmpty();
        link.check();
        assertThat(logs.messages(Level.WARN)).hasSize(1).first().asString().contains("unreachable");

        server.restart();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            link.check();
            return link.up();
        });
        assertThat(writeBacks).hasValue(2);
        assertThat(server.commands().get("test:state")).isEqualTo("mine2");
        assertThat(logs.messages(Level.INFO)).filteredOn(m -> m.contains("written back")).hasSize(1);
        assertThat(logs.messages(Level.WARN)).hasSize(1);
    }

    @Test
    void should_write_back_to_a_redis_that_lost_its_data() {
        RedisLink link = link(server.url());
        AtomicInteger writeBacks = new AtomicInteger();
        link.onConnect(writeBacks::incrementAndGet);
        link.check();
        link.check();
        assertThat(writeBacks).hasValue(1);

        server.commands().flushall();
        link.check();

        assertThat(writeBacks).hasValue(2);
        assertThat(logs.messages(Level.INFO)).filteredOn(m -> m.contains("restarted or flushed")).hasSize(1);
    }

    @Test
    void should_start_without_redis_and_connect_when_it_comes() {
        server.kill();
        RedisLink link = link(server.url());
        AtomicInteger connects = new AtomicInteger();
        link.onConnect(connects::incrementAndGet);

        link.check();
        link.check();
        assertThat(link.up()).isFalse();
        assertThat(logs.messages(Level.WARN)).hasSize(1);

        server.restart();
        link.check();
        assertThat(link.up()).isTrue();
        assertThat(connects).hasValue(1);
    }

    @Test
    void should_not_log_the_password_of_the_url() {
        server.kill();
        RedisLink link = link("redis://:sekret-pass@127.0.0.1:" + server.port());
        link.check();

        assertThat(logs.all()).contains("***@127.0.0.1").doesNotContain("sekret-pass");
    }

    private RedisLink link(String url) {
        RedisLink link = new RedisLink(new RedisConfig(url, "test", Duration.ofMillis(200)));
        links.add(link);
        return link;
    }
}
