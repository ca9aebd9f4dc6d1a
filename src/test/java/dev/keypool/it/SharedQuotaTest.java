package dev.keypool.it;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.GatewayInstance;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two gateway instances sharing one redis-server spend a key's quota once between them: with {@code rpm: 60} the
 * provider sees at most 60 calls of the key in any 60 s, however the load is spread; Redis holds no raw key.
 */
@Tag("slow")
class SharedQuotaTest {

    private static final String KEY = "sk-proj-Q7wErTy2UiOp5AsDf8GhJk3LzXc6VbNm1QwE4rTy9UiOp0As";

    @TempDir
    Path dir;

    private SharedGateways shared;

    @BeforeEach
    void share() {
        shared = new SharedGateways(dir, Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        shared.close();
    }

    @Test
    void should_send_at_most_the_keys_rpm_from_both_instances_together() throws Exception {
        GatewayInstance a = instance("a");
        GatewayInstance b = instance("b");
        List<HttpResponse<String>> answers = new CopyOnWriteArrayList<>();

        // 100 requests on each instance, 8 at a time on each, all at once (well inside one minute)
        ExecutorService clients = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> running = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 200; i++) {
                GatewayInstance target = i % 2 == 0 ? a : b;
                running.add(clients.submit(() -> answers.add(target.chat("gpt-quota", null))));
            }
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }

        // alone, each instance would have sent 60: the upstream would have seen 120
        assertThat(shared.upstream.hits(KEY)).isLessThanOrEqualTo(60).isGreaterThanOrEqualTo(55);
        assertThat(answers).hasSize(200);
        assertThat(answers).filteredOn(r -> r.statusCode() == 200).hasSize(shared.upstream.hits(KEY));
        assertThat(answers).filteredOn(r -> r.statusCode() != 200)
                .allSatisfy(r -> {
                    assertThat(r.statusCode()).isEqualTo(429);
                    assertThat(r.body()).contains("\"code\":\"quota_exhausted\"");
                });
        // each instance was refused by the shared count, not by its own: both served part of the 60
        assertThat(answers).filteredOn(r -> r.statusCode() == 200 && r.uri().getPort() == a.port()).isNotEmpty();
        assertThat(answers).filteredOn(r -> r.statusCode() == 200 && r.uri().getPort() == b.port()).isNotEmpty();

        Map<String, String> stored = shared.redis.dump();
        String fingerprint = Fingerprint.of(KEY);
        assertThat(stored).containsKey("keypool:quota:quota:" + fingerprint + ":rpm");
        assertThat(stored.toString()).doesNotContain(KEY).doesNotContain(KEY.substring(8, 30));
    }

    private GatewayInstance instance(String name) {
        return shared.start(name, """
                redis:
                  url: %s
                  # a loaded CI machine can stall a first call past the 50 ms default: Redis would count as down
                  timeout: 500ms
                queue:
                  maxWait: 0s
                channels:
                  - name: quota
                    baseUrl: %s
                    models: [gpt-quota]
                    keys:
                      - key: %s
                        rpm: 60
                """.formatted(shared.redis.url(), shared.upstream.baseUrl(), KEY));
    }
}
