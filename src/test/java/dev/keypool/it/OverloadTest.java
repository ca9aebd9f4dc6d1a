package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.pipeline.Admission;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Past keypool.max-in-flight a request is refused at once with 503 overloaded, not queued. */
class OverloadTest extends GatewayTestSupport {

    private static final int MAX_IN_FLIGHT = 5;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-o-1
                      - key: sk-o-2
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.max-in-flight", String.valueOf(MAX_IN_FLIGHT));
        return p;
    }

    @Test
    void should_answer_503_overloaded_at_once_past_max_in_flight_and_admit_again_when_a_place_is_free() throws Exception {
        upstream.holdAnswers();
        List<CompletableFuture<HttpResponse<String>>> holding = new ArrayList<>();
        for (int i = 0; i < MAX_IN_FLIGHT; i++) {
            holding.add(http.sendAsync(request("/v1/chat/completions", chatBody("any")), HttpResponse.BodyHandlers.ofString()));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.heldAnswers() == MAX_IN_FLIGHT);

        HttpResponse<String> chat = post("/v1/chat/completions", chatBody("any"));
        HttpResponse<String> embeddings = post("/v1/embeddings", "{\"model\":\"any\",\"input\":\"hi\"}");

        for (HttpResponse<String> refused : List.of(chat, embeddings)) {
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            JsonNode error = new ObjectMapper().readTree(refused.body()).path("error");
            assertThat(error.path("code").asText()).isEqualTo("overloaded");
            assertThat(error.path("type").asText()).isEqualTo("service_unavailable_error");
            assertThat(error.path("message").asText()).contains(String.valueOf(MAX_IN_FLIGHT));
        }
        // on Anthropic's path the same refusal in Anthropic's shape
        HttpResponse<String> messages = post("/v1/messages", "{\"model\":\"any\",\"max_tokens\":1,\"messages\":[]}");
        assertThat(messages.statusCode()).isEqualTo(503);
        assertThat(messages.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(new ObjectMapper().readTree(messages.body()).path("error").path("type").asText()).isEqualTo("overloaded_error");

        assertThat(upstream.totalHits()).isEqualTo(MAX_IN_FLIGHT);   // the refused ones never went upstream
        assertThat(admission().limit().refused()).isEqualTo(3);

        upstream.releaseAnswers();
        assertThat(holding).allSatisfy(f -> assertThat(f.join().statusCode()).isEqualTo(200));
        await().atMost(Duration.ofSeconds(10)).until(() -> admission().limit().inFlight() == 0);
        assertThat(chat("any").statusCode()).isEqualTo(200);
        assertThat(get("/v1/models").statusCode()).isEqualTo(200);
    }

    private Admission admission() {
        return context.getRegistry().lookupByNameAndType("admission", Admission.class);
    }

    private HttpRequest request(String path, String body) {
        return HttpRequest.newBuilder(URI.create(url(path))).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }
}
