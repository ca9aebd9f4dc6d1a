package dev.keypool.redis;

import java.time.Duration;

import dev.keypool.config.RedisConfig;
import dev.keypool.testing.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The half-open probe budget shared in a real redis-server: its places, and those of probes that never report. */
@Tag("slow")
class RedisBreakersProbeTest {

    private static final String PROBES = "test:breaker:main:probes:7";

    private final RedisServer server = RedisServer.start();
    private final RedisLink link = new RedisLink(new RedisConfig(server.url(), "test", Duration.ofMillis(500)));
    private final RedisBreakers breakers = new RedisBreakers(link);

    @AfterEach
    void stop() {
        link.close();
        server.close();
    }

    @Test
    void should_give_at_most_the_budget_of_probes_while_they_report() {
        link.check();

        assertThat(breakers.takeProbe("main", 7, 3)).isTrue();
        assertThat(breakers.takeProbe("main", 7, 3)).isTrue();
        breakers.recordProbe("main", 7, true);
        assertThat(breakers.takeProbe("main", 7, 3)).isTrue();
        assertThat(breakers.takeProbe("main", 7, 3)).isFalse();
    }

    @Test
    void should_give_back_the_places_of_probes_that_never_reported() {
        link.check();
        for (int i = 0; i < 3; i++) {
            assertThat(breakers.takeProbe("main", 7, 3)).isTrue();
        }
        breakers.recordProbe("main", 7, true);
        assertThat(breakers.takeProbe("main", 7, 3)).isFalse();

        // two of them never came back (clients gone, an instance died): three minutes on, by Redis's clock
        long redisNow = Long.parseLong(server.commands().time().get(0)) * 1000;
        server.commands().hset(PROBES, "takenAt", Long.toString(redisNow - Duration.ofMinutes(3).toMillis()));

        assertThat(breakers.takeProbe("main", 7, 3)).isTrue();
        assertThat(breakers.takeProbe("main", 7, 3)).isTrue();
        assertThat(breakers.takeProbe("main", 7, 3)).isFalse();
    }
}
