package dev.keypool.alert;

import java.time.Duration;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** One alert per rule and subject per period, by the injected clock. */
class LocalAlertThrottleTest {

    private final MutableClock clock = new MutableClock();
    private final AlertThrottle throttle = new LocalAlertThrottle(Duration.ofMinutes(10), clock);

    @Test
    void should_let_one_alert_per_rule_and_subject_through_per_period() {
        assertThat(throttle.allow(AlertRule.BREAKER_OPENED, "alpha")).isTrue();
        clock.advance(Duration.ofMinutes(9).plusSeconds(59));
        assertThat(throttle.allow(AlertRule.BREAKER_OPENED, "alpha")).isFalse();
        // another subject, another rule: their own periods
        assertThat(throttle.allow(AlertRule.BREAKER_OPENED, "beta")).isTrue();
        assertThat(throttle.allow(AlertRule.CHANNEL_UNUSABLE, "alpha")).isTrue();

        clock.advance(Duration.ofSeconds(1));

        assertThat(throttle.allow(AlertRule.BREAKER_OPENED, "alpha")).isTrue();
        assertThat(throttle.allow(AlertRule.BREAKER_OPENED, "alpha")).isFalse();
    }
}
