package dev.keypool.routing;

import java.time.Duration;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A walk that moves on to another model is logged once per minute per pair of models. */
class ModelSwitchesTest {

    private final MutableClock clock = new MutableClock();
    private final ModelSwitches switches = new ModelSwitches(Duration.ofMinutes(1), clock);

    @Test
    void should_log_a_pair_once_per_minute() {
        assertThat(switches.shouldLog("cheap-chat", "dear-chat")).isTrue();
        assertThat(switches.shouldLog("cheap-chat", "dear-chat")).isFalse();
        // another pair is its own
        assertThat(switches.shouldLog("cheap-chat", "local-chat")).isTrue();

        clock.advance(Duration.ofSeconds(59));
        assertThat(switches.shouldLog("cheap-chat", "dear-chat")).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(switches.shouldLog("cheap-chat", "dear-chat")).isTrue();
    }
}
