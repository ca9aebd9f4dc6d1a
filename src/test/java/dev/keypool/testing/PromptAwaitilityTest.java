package dev.keypool.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.core.ConditionEvaluationListener;
import org.awaitility.core.EvaluatedCondition;
import org.junit.jupiter.api.Test;

/** Every test class gets {@link PromptAwaitility} by auto-detection, this one included, without naming it. */
class PromptAwaitilityTest {

    @Test
    void should_look_again_after_1_2_and_4_ms_instead_of_every_100_ms() {
        AtomicInteger looks = new AtomicInteger();
        List<Long> intervals = new CopyOnWriteArrayList<>();

        await().atMost(Duration.ofSeconds(5))
                .conditionEvaluationListener((ConditionEvaluationListener<Boolean>) (EvaluatedCondition<Boolean> c)
                        -> intervals.add(c.getPollInterval().toMillis()))
                .until(() -> looks.incrementAndGet() == 4);

        // Awaitility's own default: 100, 100, 100, 100 (and a first look only after 100 ms)
        assertThat(intervals).startsWith(0L, 1L, 2L);
        assertThat(looks.get()).isEqualTo(4);
    }

    @Test
    void should_double_the_interval_up_to_100_ms() {
        List<Long> intervals = new ArrayList<>();
        Duration previous = Duration.ZERO;
        for (int poll = 1; poll <= 10; poll++) {
            previous = PromptAwaitility.DOUBLING.next(poll, previous);
            intervals.add(previous.toMillis());
        }

        assertThat(intervals).containsExactly(1L, 2L, 4L, 8L, 16L, 32L, 64L, 100L, 100L, 100L);
    }
}
