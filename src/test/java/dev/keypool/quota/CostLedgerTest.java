package dev.keypool.quota;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import dev.keypool.quota.CostLedger.ModelUsage;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class CostLedgerTest {

    private final CostLedger ledger = new CostLedger(Map.of(
            "glm-4-flash", new ModelPrice(0.10, 0.10),
            "glm-4", new ModelPrice(5.0, 15.0)));

    @Test
    void should_price_usage_per_million_tokens_per_key_channel_and_model() {
        ledger.record("key-a", "glm-4", 1_000_000, 200_000);          // 5 + 3
        ledger.record("key-b", "glm-4", 100_000, 0);                  // 0.5
        ledger.record("key-a", "glm-4-flash", 2_000_000, 1_000_000);  // 0.2 + 0.1

        assertThat(ledger.costUsd("key-a")).isCloseTo(8.3, within(1e-9));
        assertThat(ledger.costUsd("key-b")).isCloseTo(0.5, within(1e-9));
        assertThat(ledger.costUsd()).isCloseTo(8.8, within(1e-9));
        assertThat(ledger.byModel()).extracting(ModelUsage::model, ModelUsage::promptTokens, ModelUsage::completionTokens)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("glm-4", 1_100_000L, 200_000L),
                        org.assertj.core.groups.Tuple.tuple("glm-4-flash", 2_000_000L, 1_000_000L));
        assertThat(ledger.byModel().get(0).costUsd()).isCloseTo(8.5, within(1e-9));
    }

    @Test
    void should_count_tokens_and_no_cost_for_a_model_without_a_price() {
        ledger.record("key-a", "mystery-model", 500, 100);

        assertThat(ledger.byModel()).containsExactly(new ModelUsage("mystery-model", 500, 100, 0.0));
        assertThat(ledger.costUsd()).isZero();
        assertThat(ledger.costUsd("key-a")).isZero();
    }

    @Test
    void should_show_no_cost_for_a_key_without_calls() {
        assertThat(ledger.costUsd("never-used")).isZero();
        assertThat(ledger.byModel()).isEmpty();
    }

    @Test
    void should_not_grow_with_every_model_name_clients_send() {
        for (int i = 0; i < CostLedger.MAX_MODELS + 50; i++) {
            ledger.record("key-a", "model-" + i, 1, 1);
        }

        assertThat(ledger.byModel()).hasSizeLessThanOrEqualTo(CostLedger.MAX_MODELS + 1)
                .anySatisfy(u -> assertThat(u.model()).isEqualTo(CostLedger.OTHER_MODELS));
        assertThat(ledger.byModel().stream().mapToLong(ModelUsage::promptTokens).sum()).isEqualTo(CostLedger.MAX_MODELS + 50);
    }

    @Test
    void should_lose_nothing_under_concurrent_calls() throws Exception {
        int threads = 8;
        int calls = 10_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String key = "key-" + (t % 2);
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                for (int i = 0; i < calls; i++) {
                    ledger.record(key, "glm-4", 10, 10);   // 200 µUSD each
                }
            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }

        assertThat(ledger.byModel()).singleElement().satisfies(u -> {
            assertThat(u.promptTokens()).isEqualTo((long) threads * calls * 10);
            assertThat(u.completionTokens()).isEqualTo((long) threads * calls * 10);
        });
        assertThat(ledger.costUsd()).isCloseTo(threads * calls * 0.0002, within(1e-6));
        assertThat(ledger.costUsd("key-0") + ledger.costUsd("key-1")).isCloseTo(ledger.costUsd(), within(1e-9));
    }

    @Test
    void should_refuse_a_negative_price() {
        assertThatThrownBy(() -> new ModelPrice(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
