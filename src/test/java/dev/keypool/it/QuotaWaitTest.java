package dev.keypool.it;

import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.pipeline.CapacityWait;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A request held back by quotas waits in line for room that comes within queue.maxWait, and then goes. The tests share
 * one gateway, each on a channel of its own whose one key allows one request per minute or per day; each leaves no
 * request in line.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuotaWaitTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-w-1
                        rpm: 1
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [gpt-day]
                    keys:
                      - key: sk-d-1
                        rpd: 1
                  - name: gamma
                    baseUrl: UPSTREAM
                    models: [gpt-hang-up]
                    keys:
                      - key: sk-h-1
                        rpm: 1
                admin:
                  token: admin-secret
                queue:
                  maxWait: 90s
                  maxSize: 5
                """;
    }

    /** The line of requests waiting for room, as /admin/status shows it. */
    private JsonNode status() throws Exception {
        return new ObjectMapper().readTree(getWithToken("/admin/status", "admin-secret").body()).path("queue");
    }

    private CapacityWait capacityWait() {
        return context.getRegistry().lookupByNameAndType("capacityWait", CapacityWait.class);
    }

    @Test
    void should_wait_for_room_and_then_send_the_request() throws Exception {
        clock.set(Instant.parse("2026-11-30T10:00:00.500Z"));
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        long waitsBefore = status().path("waits").asLong();

        CompletableFuture<HttpResponse<String>> second = CompletableFuture.supplyAsync(() -> {
            try {
                return chat("gpt-test");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> capacityWait().queue().waiting() == 1);
        // the one call the key can take within maxWait is promised to the request waiting ahead: no use waiting
        HttpResponse<String> third = chat("gpt-test");
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.body()).contains("\"code\":\"quota_exhausted\"");
        assertThat(capacityWait().queue().waiting()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(30));
        assertThat(second).isNotDone();
        assertThat(upstream.hits("sk-w-1")).isEqualTo(1);

        clock.advance(Duration.ofSeconds(31));   // 10:01:01.5: the first call has left the window

        HttpResponse<String> answered = second.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(answered.statusCode()).isEqualTo(200);
        assertThat(upstream.hits("sk-w-1")).isEqualTo(2);
        assertThat(capacityWait().queue().waiting()).isZero();
        JsonNode queue = status();
        assertThat(queue.path("waiting").asInt()).isZero();
        assertThat(queue.path("maxSize").asInt()).isEqualTo(5);
        assertThat(queue.path("waits").asLong()).isEqualTo(waitsBefore + 1);
        assertThat(queue.path("averageWaitMs").asDouble()).isPositive();
    }

    @Test
    void should_answer_at_once_when_room_comes_later_than_max_wait() throws Exception {
        clock.set(Instant.parse("2026-11-30T23:00:00Z"));
        assertThat(chat("gpt-day").statusCode()).isEqualTo(200);

        HttpResponse<String> r = chat("gpt-day");

        // the day's one request is used: room at midnight UTC, an hour away, far past maxWait
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.body()).contains("\"code\":\"quota_exhausted\"");
        assertThat(r.headers().firstValue("Retry-After")).contains("3600");
        assertThat(capacityWait().queue().waiting()).isZero();
        assertThat(upstream.hits("sk-d-1")).isEqualTo(1);
    }

    @Test
    void should_free_its_place_in_line_when_the_client_hangs_up() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "a waiting request is ended on client hang-up on virtual threads");
        clock.set(Instant.parse("2026-11-30T10:00:00.500Z"));
        assertThat(chat("gpt-hang-up").statusCode()).isEqualTo(200);

        try (Socket client = rawChat(chatBody("gpt-hang-up"))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> capacityWait().queue().waiting() == 1);
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> capacityWait().queue().waiting() == 0);
        clock.advance(Duration.ofSeconds(61));
        assertThat(chat("gpt-hang-up").statusCode()).isEqualTo(200);
        assertThat(upstream.hits("sk-h-1")).isEqualTo(2);   // the hung-up request never went out
    }
}
