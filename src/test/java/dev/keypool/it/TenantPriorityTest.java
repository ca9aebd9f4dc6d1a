package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.camel.pipeline.CapacityWait;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * design §7 priority through real HTTP: with the only key at its rpm limit, requests wait in line; when room comes
 * a high-priority tenant's request goes before the low-priority requests that were waiting longer.
 */
class TenantPriorityTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-one-a-minute
                        rpm: 1
                tenants:
                  - name: batch
                    token: token-low
                    priority: low
                  - name: web
                    token: token-normal
                  - name: oncall
                    token: token-high
                    priority: high
                queue:
                  maxWait: 10m
                  maxSize: 100
                """;
    }

    private CompletableFuture<HttpResponse<String>> chatAs(String token, String name, List<String> served) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-4o-mini"))).build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(r -> {
            served.add(name);
            return r;
        });
    }

    private int waiting() {
        return context.getRegistry().lookupByNameAndType("capacityWait", CapacityWait.class).queue().waiting();
    }

    @Test
    void should_serve_higher_priority_first_and_arrival_order_within_a_priority() throws Exception {
        List<String> served = new CopyOnWriteArrayList<>();
        assertThat(chatAs("token-low", "first", served).get().statusCode()).isEqualTo(200);
        List<CompletableFuture<HttpResponse<String>>> waiters = new java.util.ArrayList<>();
        String[][] arrivals = {{"token-low", "low-1"}, {"token-normal", "normal-1"}, {"token-low", "low-2"},
                {"token-high", "high-1"}, {"token-normal", "normal-2"}, {"token-high", "high-2"}};
        for (String[] arrival : arrivals) {
            int before = waiting();
            waiters.add(chatAs(arrival[0], arrival[1], served));
            await().until(() -> waiting() == before + 1);
        }

        for (int minute = 1; minute <= arrivals.length; minute++) {
            // one more request's room each minute: exactly one of the line goes
            clock.advance(Duration.ofSeconds(61));
            int expected = minute + 1;
            await().until(() -> served.size() == expected);
            assertThat(waiting()).isEqualTo(arrivals.length - minute);
        }

        assertThat(served).containsExactly("first", "high-1", "high-2", "normal-1", "normal-2", "low-1", "low-2");
        for (CompletableFuture<HttpResponse<String>> waiter : waiters) {
            assertThat(waiter.get().statusCode()).isEqualTo(200);
        }
        assertThat(upstream.totalHits()).isEqualTo(7);
    }

    @Test
    void should_not_let_a_steady_stream_of_low_priority_requests_delay_a_high_one() throws Exception {
        List<String> served = new CopyOnWriteArrayList<>();
        assertThat(chatAs("token-low", "first", served).get().statusCode()).isEqualTo(200);
        for (int i = 1; i <= 3; i++) {
            int before = waiting();
            chatAs("token-low", "low-" + i, served);
            await().until(() -> waiting() == before + 1);
        }
        clock.advance(Duration.ofSeconds(61));
        await().until(() -> served.size() == 2);
        // more low ones keep coming, then a high one, then more low ones
        for (String[] arrival : new String[][] {{"token-low", "low-4"}, {"token-high", "high"}, {"token-low", "low-5"}}) {
            int before = waiting();
            chatAs(arrival[0], arrival[1], served);
            await().until(() -> waiting() == before + 1);
        }

        clock.advance(Duration.ofSeconds(61));
        await().until(() -> served.size() == 3);

        assertThat(served).containsExactly("first", "low-1", "high");
        // the rest go in their order, one a minute (and the gateway stops without requests left waiting)
        for (int left = 4; left > 0; left--) {
            clock.advance(Duration.ofSeconds(61));
            int expected = 3 + 5 - left;
            await().until(() -> served.size() == expected);
        }
        assertThat(served).containsExactly("first", "low-1", "high", "low-2", "low-3", "low-4", "low-5");
    }
}
