package dev.keypool.it;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A tenant's {@code maxInFlight} bounds its requests in flight: past it 429 tenant_rate_limited with Retry-After,
 * while other tenants go on; a place comes back when its request ends, also when the client hangs up.
 */
class TenantInFlightTest extends GatewayTestSupport {

    private static final String TOKEN_A = "token-team-a";
    private static final String TOKEN_B = "token-team-b";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    timeout: 60s
                    keys:
                      - key: sk-t-1
                      - key: sk-t-2
                      - key: sk-t-3
                      - key: sk-t-4
                tenants:
                  - name: team-a
                    token: %s
                    maxInFlight: 2
                  - name: team-b
                    token: %s
                admin:
                  token: admin-secret
                """.formatted(TOKEN_A, TOKEN_B);
    }

    @Test
    void should_refuse_a_third_request_of_a_tenant_while_two_are_in_flight_and_serve_the_other_tenant() throws Exception {
        upstream.holdAnswers();
        List<CompletableFuture<HttpResponse<String>>> calls = IntStream.range(0, 3)
                .mapToObj(i -> http.sendAsync(chatRequest(TOKEN_A), HttpResponse.BodyHandlers.ofString())).toList();

        // two reach the provider, the third is answered at once
        await().atMost(Duration.ofSeconds(20)).until(() -> upstream.heldAnswers() == 2
                && calls.stream().filter(CompletableFuture::isDone).count() == 1);
        HttpResponse<String> refused = calls.stream().filter(CompletableFuture::isDone).findFirst().orElseThrow().get();
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).contains("1");
        assertThat(refused.body()).contains("\"code\":\"tenant_rate_limited\"").contains("team-a");
        assertThat(tenant("team-a", "admin-secret").path("inFlight").asInt()).isEqualTo(2);

        // the other tenant is not held back by team-a's limit
        CompletableFuture<HttpResponse<String>> other = http.sendAsync(chatRequest(TOKEN_B), HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(20)).until(() -> upstream.heldAnswers() == 3);

        upstream.releaseAnswers();
        assertThat(other.get().statusCode()).isEqualTo(200);
        assertThat(calls.stream().map(CompletableFuture::join).filter(r -> r.statusCode() == 200)).hasSize(2);
        // the places came back with the answers
        await().atMost(Duration.ofSeconds(10)).until(() -> tenant("team-a", "admin-secret").path("inFlight").asInt() == 0);
        assertThat(http.send(chatRequest(TOKEN_A), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }

    @Test
    void should_give_a_place_back_when_its_client_hangs_up() throws Exception {
        upstream.holdAnswers();
        try (Socket first = rawChatAs(TOKEN_A); Socket second = rawChatAs(TOKEN_A)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> upstream.heldAnswers() == 2);
            assertThat(http.send(chatRequest(TOKEN_A), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(429);
        }
        // both clients hung up: their provider calls are cancelled and their places are free again
        await().atMost(Duration.ofSeconds(10)).until(() -> tenant("team-a", "admin-secret").path("inFlight").asInt() == 0);
        upstream.releaseAnswers();
        assertThat(http.send(chatRequest(TOKEN_A), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }

    private HttpRequest chatRequest(String token) {
        return HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))).build();
    }

    /** A chat request of this tenant on a plain socket, so that the test decides when its client hangs up. */
    private Socket rawChatAs(String token) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        byte[] bytes = chatBody("gpt-test").getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer " + token + "\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        return socket;
    }
}
