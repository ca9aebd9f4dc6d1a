package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import dev.keypool.pool.Fingerprint;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A retry waiting out its backoff does not go to a channel whose breaker opened meanwhile. */
class RetryAfterTripTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: sick
                    baseUrl: UPSTREAM
                    models: [m]
                    fallback: [backup]
                    keys:
                      - key: sk-sick-1
                      - key: sk-sick-2
                  - name: backup
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-backup-1
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.retry-backoff-ms", "1000");   // a long backoff (0.5 to 1.5 s with jitter), so the breaker opens inside it
        return p;
    }

    @Test
    void should_not_send_a_scheduled_retry_to_a_channel_that_opened_meanwhile() throws Exception {
        upstream.answer("sk-sick-1", 500);
        CompletableFuture<HttpResponse<String>> call = CompletableFuture.supplyAsync(() -> {
            try {
                return chat("m");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        var key1 = channel("sick").pool().find(Fingerprint.of("sk-sick-1")).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> key1.stats().failureCount() == 1);

        channel("sick").breaker().forceOpen("tripped by another request");
        HttpResponse<String> r = call.get();

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(upstream.hits("sk-sick-2")).isZero();
    }
}
