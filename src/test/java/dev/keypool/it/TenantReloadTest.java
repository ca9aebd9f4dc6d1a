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
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * POST /admin/reload applies the tenants of keypool.yaml: a removed tenant's token is refused at once while its
 * requests in flight finish, a changed token replaces the old one, and changed limits apply from the next request,
 * counting on from what the tenant used already. The tests share one gateway, each with tenants a and b of its own
 * (named after the test); a test edits its own tenants in keypool.yaml and leaves the others' as they are.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantReloadTest extends GatewayTestSupport {

    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        StringBuilder tenants = new StringBuilder();
        for (String test : testNames()) {
            tenants.append(tenantsOf(test));
        }
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-alpha-1
                tenants:
                """ + tenants + """
                admin:
                  token: admin-secret-token
                queue:
                  maxWait: 0s
                """;
    }

    /** The tenants of a test as keypool.yaml lists them first. */
    private static String tenantsOf(String test) {
        return """
                  - name: %1$s-a
                    token: token-a-%1$s
                    rpd: 2
                  - name: %1$s-b
                    token: token-b-%1$s
                """.formatted(test);
    }

    /** The tenants of this test as it first had them. */
    private String first() {
        return tenantsOf(testName());
    }

    private String tenant(String letter) {
        return testName() + "-" + letter;
    }

    private String token(String letter) {
        return "token-" + letter + "-" + testName();
    }

    /** Writes this test's tenants as {@code tenants} in keypool.yaml, the other tests' as they are, and reloads. */
    private HttpResponse<String> reload(String tenants) throws Exception {
        Path file = Path.of(context.resolvePropertyPlaceholders("{{keypool.config}}"));
        String yaml = Files.readString(file);
        int start = yaml.indexOf("  - name: " + tenant("a") + "\n");
        int end = yaml.indexOf("  - name: ", yaml.indexOf("  - name: " + tenant("b") + "\n") + 1);
        Files.writeString(file, yaml.substring(0, start) + tenants + yaml.substring(end < 0 ? yaml.indexOf("admin:") : end));
        return new AdminCalls(http, url("")).post("/admin/reload");
    }

    @Test
    void should_refuse_a_removed_tenant_at_once_and_let_its_request_in_flight_finish() throws Exception {
        assertThat(chatAs(token("b"), "gpt-test").statusCode()).isEqualTo(200);
        upstream.holdAnswers();
        CompletableFuture<HttpResponse<String>> inFlight = http.sendAsync(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token("b"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))).build(),
                HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.heldAnswers() == 1);

        HttpResponse<String> reloaded = reload(first().replace("""
                  - name: %1$s-b
                    token: token-b-%1$s
                """.formatted(testName()), ""));

        assertThat(reloaded.statusCode()).isEqualTo(200);
        JsonNode tenants = mapper.readTree(reloaded.body()).path("tenants");
        assertThat(tenants.path("removed").toString()).isEqualTo("[\"" + tenant("b") + "\"]");
        HttpResponse<String> refused = chatAs(token("b"), "gpt-test");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(mapper.readTree(refused.body()).path("error").path("code").asText()).isEqualTo("invalid_api_key");
        upstream.releaseAnswers();
        assertThat(inFlight.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(chatAs(token("a"), "gpt-test").statusCode()).isEqualTo(200);
        assertThat(getWithToken("/admin/status", "admin-secret-token").body()).doesNotContain(tenant("b"));
    }

    @Test
    void should_take_a_changed_token_instead_of_the_old_one() throws Exception {
        assertThat(chatAs(token("b"), "gpt-test").statusCode()).isEqualTo(200);

        HttpResponse<String> reloaded = reload(first().replace("token: " + token("b"), "token: " + token("b") + "-rotated"));

        assertThat(reloaded.statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(reloaded.body()).path("tenants").path("changed").toString()).isEqualTo("[\"" + tenant("b") + "\"]");
        assertThat(chatAs(token("b"), "gpt-test").statusCode()).isEqualTo(401);
        assertThat(chatAs(token("b") + "-rotated", "gpt-test").statusCode()).isEqualTo(200);
        assertThat(reloaded.body()).doesNotContain(token("b"));
        assertThat(logs.all()).doesNotContain(token("b"));
    }

    @Test
    void should_apply_changed_limits_counting_on_from_what_was_used() throws Exception {
        assertThat(chatAs(token("a"), "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs(token("a"), "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs(token("a"), "gpt-test").statusCode()).isEqualTo(429);

        // a limit of its changed, another not: the day's two requests still count
        assertThat(reload(first().replace("rpd: 2", "rpd: 2\n    rpm: 600")).statusCode()).isEqualTo(200);
        assertThat(chatAs(token("a"), "gpt-test").statusCode()).isEqualTo(429);

        assertThat(reload(first().replace("rpd: 2", "rpd: 3")).statusCode()).isEqualTo(200);
        assertThat(chatAs(token("a"), "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs(token("a"), "gpt-test").statusCode()).isEqualTo(429);
        assertThat(tenant(tenant("a"), "admin-secret-token").toString()).contains("\"requests\":3");
    }
}
