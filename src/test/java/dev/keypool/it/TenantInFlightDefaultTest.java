package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** keypool.tenant-max-in-flight bounds every tenant without a maxInFlight of its own; one with its own keeps it. */
class TenantInFlightDefaultTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-d-1
                      - key: sk-d-2
                      - key: sk-d-3
                tenants:
                  - name: team-a
                    token: token-a
                  - name: team-b
                    token: token-b
                    maxInFlight: 2
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.tenant-max-in-flight", "1");
        return p;
    }

    @Test
    void should_bound_tenants_without_their_own_limit_by_the_gateway_default() throws Exception {
        upstream.holdAnswers();
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(chatOf("token-a"), HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(20)).until(() -> upstream.heldAnswers() == 1);

        HttpResponse<String> second = http.send(chatOf("token-a"), HttpResponse.BodyHandlers.ofString());
        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(second.body()).contains("tenant_rate_limited");

        // team-b's own limit of 2 is not the default's 1
        CompletableFuture<HttpResponse<String>> b1 = http.sendAsync(chatOf("token-b"), HttpResponse.BodyHandlers.ofString());
        CompletableFuture<HttpResponse<String>> b2 = http.sendAsync(chatOf("token-b"), HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(20)).until(() -> upstream.heldAnswers() == 3);
        upstream.releaseAnswers();
        assertThat(first.get().statusCode()).isEqualTo(200);
        assertThat(b1.get().statusCode()).isEqualTo(200);
        assertThat(b2.get().statusCode()).isEqualTo(200);
    }

    private HttpRequest chatOf(String token) {
        return HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))).build();
    }
}
