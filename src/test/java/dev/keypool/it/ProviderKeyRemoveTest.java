package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * DELETE /admin/channels/{name}/keys/{fingerprint}: the key takes no new request at once, the one in flight on it
 * finishes, and it is gone for good: after a restart too.
 */
class ProviderKeyRemoveTest {

    private static final String RAW = ProviderKeyAddTest.RAW;
    private static final String FINGERPRINT = ProviderKeyAddTest.FINGERPRINT;
    private static final String FILE_KEY = Fingerprint.of("sk-file-1");

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock();
    private final FakeUpstream upstream = new FakeUpstream();
    private final Map<String, String> master = Map.of("KEYPOOL_MASTER_KEY", ProviderKeyAddTest.masterKey());
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private GatewayInstance gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        upstream.close();
    }

    private String yaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-file-1
                admin:
                  token: admin-secret-token
                """.replace("UPSTREAM", upstream.baseUrl());
    }

    private void start() {
        if (gateway != null) {
            gateway.close();
        }
        gateway = GatewayInstance.start(dir, "gw", yaml(), clock, master);
    }

    private HttpResponse<String> admin(String method, String path, String body) {
        return gateway.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer admin-secret-token").header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    @Test
    void should_drain_a_removed_key_then_forget_it_for_good() throws Exception {
        start();
        assertThat(admin("POST", "/admin/channels/alpha/keys", "{\"key\":\"" + RAW + "\"}").statusCode()).isEqualTo(201);
        admin("POST", "/admin/keys/" + FILE_KEY + "/disable", null);
        upstream.holdAnswers();
        CompletableFuture<HttpResponse<String>> inFlight = http.sendAsync(HttpRequest.newBuilder(
                        URI.create(gateway.baseUrl() + "/v1/chat/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\","
                        + "\"content\":\"hi\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.heldAnswers() == 1);

        HttpResponse<String> removed = admin("DELETE", "/admin/channels/alpha/keys/" + FINGERPRINT, null);

        assertThat(removed.statusCode()).isEqualTo(200);
        JsonNode answer = new ObjectMapper().readTree(removed.body());
        assertThat(answer.path("fingerprint").asText()).isEqualTo(FINGERPRINT);
        assertThat(answer.path("inFlight").asInt()).isEqualTo(1);
        assertThat(gateway.channel("alpha").pool().find(FINGERPRINT)).isEmpty();
        upstream.releaseAnswers();
        HttpResponse<String> finished = inFlight.get();
        assertThat(finished.statusCode()).as(finished.body()).isEqualTo(200);
        assertThat(finished.headers().firstValue("X-KeyPool-Key")).as(finished.headers().toString()).contains(FINGERPRINT);
        admin("POST", "/admin/keys/" + FILE_KEY + "/enable", null);
        for (int i = 0; i < 3; i++) {
            assertThat(gateway.chat("gpt-test", null).headers().firstValue("X-KeyPool-Key")).contains(FILE_KEY);
        }
        assertThat(upstream.hits(RAW)).isEqualTo(1);

        start();

        assertThat(gateway.channel("alpha").pool().keys()).extracting(k -> k.fingerprint()).containsExactly(FILE_KEY);
        assertThat(admin("DELETE", "/admin/channels/alpha/keys/" + FINGERPRINT, null).statusCode()).isEqualTo(404);
    }
}
