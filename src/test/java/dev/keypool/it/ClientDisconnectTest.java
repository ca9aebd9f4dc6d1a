package dev.keypool.it;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.keypool.camel.pipeline.Admission;
import dev.keypool.pool.ApiKey;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A client that hangs up while its request waits on the provider frees its key and its place under
 * keypool.max-in-flight at once, while the other requests in flight go on (virtual threads: Java 21+).
 */
class ClientDisconnectTest extends GatewayTestSupport {

    private static final int STAYING = 200;
    private static final int LEAVING = 100;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    timeout: 60s
                    keys:
                      - key: sk-d-1
                      - key: sk-d-2
                      - key: sk-d-3
                      - key: sk-d-4
                """;
    }

    @Test
    void should_free_the_key_and_the_place_of_a_client_that_hangs_up_under_load() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "requests are cut on client hang-up on virtual threads only");
        upstream.holdAnswers().keepRequests(false);
        List<CompletableFuture<HttpResponse<String>>> staying = new ArrayList<>();
        for (int i = 0; i < STAYING; i++) {
            staying.add(http.sendAsync(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofString(chatBody("any"))).build(), HttpResponse.BodyHandlers.ofString()));
        }
        List<Socket> leaving = new ArrayList<>();
        for (int i = 0; i < LEAVING; i++) {
            leaving.add(rawChat(chatBody("any")));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> upstream.heldAnswers() == STAYING + LEAVING);
        assertThat(admission().limit().inFlight()).isEqualTo(STAYING + LEAVING);
        assertThat(keysInFlight()).isEqualTo(STAYING + LEAVING);

        for (Socket s : leaving) {
            s.close();
        }

        // the provider has answered none of them: only the hang-ups can have freed these
        await().atMost(Duration.ofSeconds(10)).until(() -> admission().limit().inFlight() == STAYING);
        await().atMost(Duration.ofSeconds(10)).until(() -> keysInFlight() == STAYING);
        assertThat(channel("alpha").pool().keys()).allMatch(k -> k.stats().failureCount() == 0, "no key blamed");
        assertThat(channel("alpha").breaker().state().name()).isEqualTo("CLOSED");

        upstream.releaseAnswers();
        assertThat(staying).allSatisfy(f -> assertThat(f.join().statusCode()).isEqualTo(200));
        await().atMost(Duration.ofSeconds(10)).until(() -> admission().limit().inFlight() == 0 && keysInFlight() == 0);
        assertThat(upstream.totalHits()).isEqualTo(STAYING + LEAVING);   // no hang-up was retried on another key
    }

    private int keysInFlight() {
        return channel("alpha").pool().keys().stream().mapToInt(ApiKey::inFlight).sum();
    }

    private Admission admission() {
        return context.getRegistry().lookupByNameAndType("admission", Admission.class);
    }
}
