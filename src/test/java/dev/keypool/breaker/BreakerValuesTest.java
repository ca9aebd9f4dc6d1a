package dev.keypool.breaker;

import java.time.Duration;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The small value types: trigger names, settings defaults and validation, trip wording, the probe count. */
class BreakerValuesTest {

    @Test
    void should_spell_triggers_as_in_the_config() {
        assertThat(BreakerTrigger.POOL_EXHAUSTED.configName()).isEqualTo("pool_exhausted");
        assertThat(BreakerTrigger.ERROR_RATE.configName()).isEqualTo("error_rate");
        assertThat(BreakerTrigger.LATENCY.configName()).isEqualTo("latency");
        assertThat(BreakerTrigger.CONSECUTIVE_FAIL.configName()).isEqualTo("consecutive_fail");
        for (BreakerTrigger trigger : BreakerTrigger.values()) {
            assertThat(BreakerTrigger.ofConfigName(trigger.configName())).contains(trigger);
        }
        assertThat(BreakerTrigger.configNames())
                .containsExactly("pool_exhausted", "error_rate", "latency", "consecutive_fail");
    }

    @Test
    void should_know_only_the_exact_config_spelling() {
        assertThat(BreakerTrigger.ofConfigName("slow")).isEmpty();
        assertThat(BreakerTrigger.ofConfigName("Error_Rate")).isEmpty();
        assertThat(BreakerTrigger.ofConfigName(null)).isEmpty();
    }

    @Test
    void should_default_to_the_spec_values() {
        BreakerSettings d = BreakerSettings.defaults();

        assertThat(d.triggers()).containsExactlyInAnyOrder(BreakerTrigger.values());
        assertThat(d.errorRateThreshold()).isEqualTo(50);
        assertThat(d.errorRateWindow()).isEqualTo(Duration.ofSeconds(60));
        assertThat(d.minimumCalls()).isEqualTo(10);
        assertThat(d.latencyThresholdMs()).isEqualTo(30_000);
        assertThat(d.latencyWindow()).isEqualTo(Duration.ofSeconds(60));
        assertThat(d.consecutiveFailThreshold()).isEqualTo(5);
        assertThat(d.recoveryTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(d.halfOpenRequests()).isEqualTo(3);
        assertThat(d.halfOpenSuccess()).isEqualTo(2);
        assertThat(d.reopenDelay()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void should_keep_its_own_copy_of_the_triggers() {
        Set<BreakerTrigger> triggers = new HashSet<>(Set.of(BreakerTrigger.LATENCY));
        BreakerSettings settings = new BreakerSettings(triggers, 50, Duration.ofSeconds(60), 10, 30_000,
                Duration.ofSeconds(60), 5, Duration.ofSeconds(30), 3, 2, Duration.ofSeconds(60));

        triggers.add(BreakerTrigger.ERROR_RATE);

        assertThat(settings.triggers()).containsExactly(BreakerTrigger.LATENCY);
        assertThatThrownBy(() -> settings.triggers().add(BreakerTrigger.ERROR_RATE))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(new BreakerSettings(Set.of(), 50, Duration.ofSeconds(60), 10, 30_000, Duration.ofSeconds(60), 5,
                Duration.ofSeconds(30), 3, 2, Duration.ofSeconds(60)).triggers()).isEmpty();
    }

    @Test
    void should_reject_settings_the_breaker_cannot_work_with() {
        assertThatThrownBy(() -> new BreakerSettings(EnumSet.allOf(BreakerTrigger.class), 50, Duration.ofSeconds(60),
                10, 30_000, Duration.ofSeconds(60), 5, Duration.ofSeconds(30), 3, 4, Duration.ofSeconds(60)))
                .hasMessageContaining("halfOpenSuccess");
        assertThatThrownBy(() -> new BreakerSettings(EnumSet.allOf(BreakerTrigger.class), 150, Duration.ofSeconds(60),
                10, 30_000, Duration.ofSeconds(60), 5, Duration.ofSeconds(30), 3, 2, Duration.ofSeconds(60)))
                .hasMessageContaining("errorRateThreshold");
        assertThatThrownBy(() -> new BreakerSettings(EnumSet.allOf(BreakerTrigger.class), 50, Duration.ZERO,
                10, 30_000, Duration.ofSeconds(60), 5, Duration.ofSeconds(30), 3, 2, Duration.ofSeconds(60)))
                .hasMessageContaining("errorRateWindow");
        assertThatThrownBy(() -> new BreakerSettings(EnumSet.allOf(BreakerTrigger.class), 50, Duration.ofSeconds(60),
                0, 30_000, Duration.ofSeconds(60), 5, Duration.ofSeconds(30), 3, 2, Duration.ofSeconds(60)))
                .hasMessageContaining("minimumCalls");
    }

    @Test
    void should_word_each_trip_as_the_log_shows_it() {
        assertThat(Trip.errorRate(45.0, 30).describe()).isEqualTo("error_rate (45.0% >= 30%)");
        assertThat(Trip.errorRate(100.0 / 3, 12.5).describe()).isEqualTo("error_rate (33.3% >= 12.5%)");
        assertThat(Trip.latency(16_000, 15_000).describe()).isEqualTo("latency (16000ms > 15000ms)");
        assertThat(Trip.latency(15_000.25, 15_000).describe()).isEqualTo("latency (15000.3ms > 15000ms)");
        assertThat(Trip.consecutiveFail(5, 5).describe()).isEqualTo("consecutive_fail (5 >= 5)");
        assertThat(Trip.poolExhausted().describe()).isEqualTo("pool_exhausted (no usable key)");
    }

    @Test
    void should_decide_a_trial_as_soon_as_the_outcome_is_certain() {
        HalfOpenTrial trial = new HalfOpenTrial(3, 2);
        assertThat(trial.success()).isEqualTo(HalfOpenTrial.Verdict.UNDECIDED);
        assertThat(trial.failure()).isEqualTo(HalfOpenTrial.Verdict.UNDECIDED);
        assertThat(trial.failure()).isEqualTo(HalfOpenTrial.Verdict.FAILED);

        HalfOpenTrial strict = new HalfOpenTrial(3, 3);
        assertThat(strict.success()).isEqualTo(HalfOpenTrial.Verdict.UNDECIDED);
        assertThat(strict.failure()).isEqualTo(HalfOpenTrial.Verdict.FAILED);

        HalfOpenTrial lenient = new HalfOpenTrial(5, 1);
        for (int i = 0; i < 4; i++) {
            assertThat(lenient.failure()).isEqualTo(HalfOpenTrial.Verdict.UNDECIDED);
        }
        assertThat(lenient.success()).isEqualTo(HalfOpenTrial.Verdict.PASSED);
        assertThat(lenient.probes()).isEqualTo(5);
    }
}
