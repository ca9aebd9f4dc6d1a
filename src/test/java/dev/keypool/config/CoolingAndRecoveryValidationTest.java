package dev.keypool.config;

import java.time.Duration;

import dev.keypool.pool.Cooling;
import dev.keypool.pool.Recovery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code cooldown} or {@code cooldownMin}/{@code cooldownMax}, and {@code recovery}, per channel (design §3, §8). */
class CoolingAndRecoveryValidationTest {

    @Test
    void should_keep_a_fixed_cooldown_fixed() {
        assertThat(parse(channelWith("cooldown: 45s")).channels().get(0).cooling())
                .isEqualTo(Cooling.fixed(Duration.ofSeconds(45)));
    }

    @Test
    void should_bind_the_cooling_bounds_and_a_whole_recovery_block() {
        ChannelConfig channel = parse(channelWith("""
                cooldownMin: 10s
                cooldownMax: 20s
                recovery: {enabled: true, firstProbe: 30s, maxInterval: 10m, degradedFor: 0}
                """)).channels().get(0);

        assertThat(channel.cooling()).isEqualTo(Cooling.spread(Duration.ofSeconds(10), Duration.ofSeconds(20)));
        assertThat(channel.keyRecovery()).isEqualTo(new Recovery(true, Duration.ofSeconds(30), Duration.ofMinutes(10),
                Duration.ZERO));
    }

    @Test
    void should_leave_recovery_to_a_probe_block_where_there_is_one() {
        assertThat(parse(channelWith("probe: {interval: 60s}")).channels().get(0).keyRecovery().enabled()).isFalse();
        assertThat(parse(channelWith("recovery: {enabled: false}")).channels().get(0).keyRecovery().enabled()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "'cooldown: 60s\ncooldownMax: 90s' | channels[0].cooldown: is a fixed cooling time: set it, or cooldownMin and cooldownMax, not both",
            "cooldownMin: 90s                   | channels[0].cooldownMin: cooldownMin (90s) must not be longer than cooldownMax (60s)",
            "'cooldownMin: 20s\ncooldownMax: 10s' | channels[0].cooldownMax: cooldownMin (20s) must not be longer than cooldownMax (10s)",
            "cooldownMax: 0                     | channels[0].cooldownMax: must be > 0",
            "'recovery: {firstProbe: 1h}'       | channels[0].recovery.firstProbe: firstProbe (60m) must not be longer than maxInterval (30m)",
            "'recovery: {enabled: maybe}'       | channels[0].recovery.enabled: must be true or false",
            "'recovery: {every: 1m}'            | channels[0].recovery.every: unknown field",
    })
    void should_report_a_bad_cooling_or_recovery_field(String field, String problem) {
        assertThat(problemsOf(channelWith(field.replace("\\n", "\n")))).containsExactly(problem);
    }
}
