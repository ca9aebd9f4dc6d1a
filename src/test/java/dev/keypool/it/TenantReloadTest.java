package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * POST /admin/reload applies the tenants of keypool.yaml: a removed tenant's token is refused at once while its
 * requests in flight finish, a changed token replaces the old one, and changed limits apply from the next request,
 * counting on from what the tenant used already.
 */
class TenantReloadTest extends GatewayTestSupport {

    private static final String FIRST = """
            channels:
              - name: alpha
                baseUrl: UPSTREAM
                models: ["*"]
                keys:
                  - key: sk-alpha-1
            tenants:
              - name: team-a
                token: token-a
                rpd: 2
              - name: team-b
                token: token-b
            admin:
              token: admin-secret-token
            queue:
              maxWait: 0s
            """;

    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return FIRST;
    }

    private HttpResponse<String> reload(String yaml) throws Exception {
        Path file = Path.of(context.resolvePropertyPlaceholders("{{keypool.config}}"));
        Files.writeString(file, yaml.replace("UPSTREAM", upstream.baseUrl()));
        return new AdminCalls(http, url("")).post("/admin/reload");
    }

    @Test
    void should_refuse_a_removed_tenant_at_once_and_let_its_request_in_flight_finish() throws Exception {
        assertThat(chatAs("token-b", "gpt-test").statusCode()).isEqualTo(200);
        upstream.holdAnswers();
        CompletableFuture<HttpResponse<String>> inFlight = http.sendAsync(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("Authorization", "Bearer token-b")
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))).build(),
                HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.heldAnswers() == 1);

        HttpResponse<String> reloaded = reload(FIRST.replace("""
                  - name: team-b
                    token: token-b
                """, ""));

        assertThat(reloaded.statusCode()).isEqualTo(200);
        JsonNode tenants = mapper.readTree(reloaded.body()).path("tenants");
        assertThat(tenants.path("removed").toString()).isEqualTo("[\"team-b\"]");
        HttpResponse<String> refused = chatAs("token-b", "gpt-test");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(mapper.readTree(refused.body()).path("error").path("code").asText()).isEqualTo("invalid_api_key");
        upstream.releaseAnswers();
        assertThat(inFlight.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);
        assertThat(getWithToken("/admin/status", "admin-secret-token").body()).doesNotContain("team-b");
    }

    @Test
    void should_take_a_changed_token_instead_of_the_old_one() throws Exception {
        assertThat(chatAs("token-b", "gpt-test").statusCode()).isEqualTo(200);

        HttpResponse<String> reloaded = reload(FIRST.replace("token: token-b", "token: token-b-rotated"));

        assertThat(reloaded.statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(reloaded.body()).path("tenants").path("changed").toString()).isEqualTo("[\"team-b\"]");
        assertThat(chatAs("token-b", "gpt-test").statusCode()).isEqualTo(401);
        assertThat(chatAs("token-b-rotated", "gpt-test").statusCode()).isEqualTo(200);
        assertThat(reloaded.body()).doesNotContain("token-b");
        assertThat(logs.all()).doesNotContain("token-b");
    }

    @Test
    void should_apply_changed_limits_counting_on_from_what_was_used() throws Exception {
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(429);

        // a limit of its changed, another not: the day's two requests still count
        assertThat(reload(FIRST.replace("rpd: 2", "rpd: 2\n    rpm: 600")).statusCode()).isEqualTo(200);
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(429);

        assertThat(reload(FIRST.replace("rpd: 2", "rpd: 3")).statusCode()).isEqualTo(200);
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(429);
        assertThat(tenant("team-a", "admin-secret-token").toString()).contains("\"requests\":3");
    }
}
