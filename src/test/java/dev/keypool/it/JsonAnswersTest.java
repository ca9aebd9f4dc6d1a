package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/** Every answer the gateway makes is JSON in OpenAI's error shape, never an HTML page or an empty body. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JsonAnswersTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> PATHS = List.of("/v1/chat/completions", "/v1/embeddings", "/v1/models",
            "/admin/status", "/demo/v1/chat/completions", "/demo/v1/embeddings", "/observe/health", "/observe/metrics",
            "/", "/v1", "/v1/unknown", "/v1/chat/completions/extra", "/admin/", "/favicon.ico");
    private static final List<String> METHODS = List.of("GET", "POST", "PUT", "PATCH", "DELETE");

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                admin:
                  token: admin-secret
                """;
    }

    @Test
    void should_answer_every_path_and_method_without_html() throws Exception {
        for (String path : PATHS) {
            for (String method : METHODS) {
                if (method.equals("GET") && path.equals("/admin/")) {
                    continue;   // the dashboard, the one HTML page (DashboardBrowserTest)
                }
                HttpResponse<String> r = send(method, path, "{}");
                String what = method + " " + path + " -> " + r.statusCode() + " " + r.body();
                assertThat(r.headers().firstValue("Content-Type").orElse("")).as(what).doesNotContain("html");
                assertThat(r.body()).as(what).doesNotContainIgnoringCase("<html");
                if (r.statusCode() >= 400) {
                    assertThat(error(r)).as(what).isNotNull();
                }
            }
        }
    }

    @Test
    void should_answer_an_unknown_path_with_a_json_404() throws Exception {
        HttpResponse<String> r = send("POST", "/v1/unknown", "{}");

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/json");
        JsonNode error = error(r);
        assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.path("code").asText()).isEqualTo("unknown_url");
        assertThat(error.path("message").asText()).isEqualTo("Invalid URL (POST /v1/unknown)");
    }

    @Test
    void should_answer_a_wrong_method_with_a_json_405_that_names_the_right_one() throws Exception {
        HttpResponse<String> chat = send("GET", "/v1/chat/completions", null);
        HttpResponse<String> models = send("POST", "/v1/models", "{}");

        assertThat(chat.statusCode()).isEqualTo(405);
        assertThat(chat.headers().firstValue("Allow")).contains("POST");
        assertThat(error(chat).path("code").asText()).isEqualTo("method_not_allowed");
        assertThat(error(chat).path("message").asText())
                .isEqualTo("Method GET is not allowed for /v1/chat/completions (use POST)");
        assertThat(models.statusCode()).isEqualTo(405);
        assertThat(models.headers().firstValue("Allow")).contains("GET");
    }

    @Test
    void should_reject_a_stream_flag_that_is_not_a_boolean() throws Exception {
        for (String stream : List.of("\"true\"", "1", "{}")) {
            HttpResponse<String> r = post("/v1/chat/completions",
                    "{\"model\":\"gpt-test\",\"stream\":" + stream + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

            assertThat(r.statusCode()).as(stream).isEqualTo(400);
            assertThat(error(r).path("code").asText()).isEqualTo("invalid_type");
            assertThat(error(r).path("message").asText()).startsWith("Invalid type for 'stream': expected a boolean");
        }
        assertThat(upstream.totalHits()).isZero();
        // null is the same as leaving it out, as OpenAI takes it
        assertThat(post("/v1/chat/completions",
                "{\"model\":\"gpt-test\",\"stream\":null,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}").statusCode())
                .isEqualTo(200);
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The {@code error} object of an OpenAI-shaped error answer; fails the test for anything else. */
    private static JsonNode error(HttpResponse<String> r) throws Exception {
        JsonNode error = JSON.readTree(r.body()).path("error");
        assertThat(error.path("message").isTextual()).as(r.body()).isTrue();
        assertThat(error.path("type").isTextual()).as(r.body()).isTrue();
        assertThat(error.path("code").isTextual()).as(r.body()).isTrue();
        return error;
    }
}
