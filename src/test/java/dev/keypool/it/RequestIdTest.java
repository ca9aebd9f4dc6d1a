package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/** Every answer names its request in X-Request-Id: the client's own id when it sent a sane one, else a new one. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestIdTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: zhipu
                    baseUrl: UPSTREAM
                    models: [glm-4-flash]
                    keys:
                      - key: sk-zhipu-1
                """;
    }

    @Test
    void should_answer_the_clients_id_or_a_new_one() throws Exception {
        assertThat(chatWithId("trace-42:abc_DEF.1").headers().firstValue("X-Request-Id")).hasValue("trace-42:abc_DEF.1");
        // too long, or characters that do not belong in an id: replaced, not echoed
        assertThat(chatWithId("x".repeat(129)).headers().firstValue("X-Request-Id").orElseThrow()).startsWith("req_");
        assertThat(chatWithId("<script>").headers().firstValue("X-Request-Id").orElseThrow()).startsWith("req_");

        String first = chat("glm-4-flash").headers().firstValue("X-Request-Id").orElseThrow();
        String second = chat("glm-4-flash").headers().firstValue("X-Request-Id").orElseThrow();
        assertThat(first).matches("req_[0-9a-f]{32}").isNotEqualTo(second);
        // errors too
        assertThat(chat("no-such-model").headers().firstValue("X-Request-Id")).isPresent();
    }

    @Test
    void should_name_a_streamed_answer() throws Exception {
        HttpResponse<String> stream = http.send(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("X-Request-Id", "stream-7")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"glm-4-flash\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(stream.statusCode()).isEqualTo(200);
        assertThat(stream.headers().firstValue("X-Request-Id")).hasValue("stream-7");
    }

    private HttpResponse<String> chatWithId(String id) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("X-Request-Id", id)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("glm-4-flash"))).build(), HttpResponse.BodyHandlers.ofString());
    }
}
