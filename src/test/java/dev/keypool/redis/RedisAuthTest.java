package dev.keypool.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.config.RedisConfig;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.RedisServer;
import io.lettuce.core.ScriptOutputType;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * redis.url with credentials against a real redis-server that asks for them: the default user's password
 * ({@code requirepass}), an ACL user allowed only KeyPool's key prefix and pub/sub channels, and a wrong password,
 * which leaves Redis down without printing it.
 */
@Tag("slow")
class RedisAuthTest {

    private final LogCapture logs = LogCapture.of(RedisLink.class);
    private final RedisServer server = RedisServer.start("--requirepass", "pw-default-1",
            // an ACL user with only what KeyPool needs: keys and channels under its prefix ("test" here)
            "--user", "keypool", "on", ">pw-acl-2", "~test:*", "&test:*", "+@all", "-@dangerous");
    private final List<RedisLink> links = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        links.forEach(RedisLink::close);
        server.close();
        logs.close();
    }

    @Test
    void should_work_with_the_password_of_the_default_user() {
        assertWorks("redis://:pw-default-1@127.0.0.1:" + server.port());
    }

    @Test
    void should_work_as_an_acl_user_limited_to_the_key_prefix() {
        assertWorks("redis://keypool:pw-acl-2@127.0.0.1:" + server.port());
    }

    @Test
    void should_stay_down_with_a_wrong_password_and_never_print_it() {
        RedisLink link = link("redis://keypool:pw-wrong-3@127.0.0.1:" + server.port());

        link.check();

        assertThat(link.up()).isFalse();
        assertThat(logs.messages(Level.WARN)).isNotEmpty();
        assertThat(logs.all()).doesNotContain("pw-wrong-3").doesNotContain("pw-");
    }

    /** Commands, a script and pub/sub between two instances: everything RedisLink does, on authenticated connections. */
    private void assertWorks(String url) {
        RedisLink a = link(url);
        RedisLink b = link(url);
        List<String> heardByB = new CopyOnWriteArrayList<>();
        b.subscribe("keys", heardByB::add);
        a.check();
        b.check();

        assertThat(a.up()).isTrue();
        assertThat(b.up()).isTrue();
        a.call(redis -> redis.set(a.key("k"), "1"));
        assertThat(b.call(redis -> redis.get(a.key("k")))).contains("1");
        RedisScript incr = RedisScript.of("incr", "return redis.call('INCRBY', KEYS[1], ARGV[1])");
        assertThat(a.<Long>eval(incr, ScriptOutputType.INTEGER, new String[] {a.key("n")}, "5")).contains(5L);
        a.publish("keys", "3f2a COOLING");
        await().atMost(Duration.ofSeconds(5)).until(() -> heardByB.contains("3f2a COOLING"));
        assertThat(logs.all()).doesNotContain("pw-");
    }

    private RedisLink link(String url) {
        RedisLink link = new RedisLink(new RedisConfig(url, "test", Duration.ofMillis(500)));
        links.add(link);
        return link;
    }
}
