package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tenants managed through the admin API outlive a restart: a tenant created there keeps its token, a tenant of
 * keypool.yaml keeps the field laid over the file's, a deleted one stays deleted.
 */
class TenantRestartTest {

    private static final String YAML = """
            channels:
              - name: alpha
                baseUrl: UPSTREAM
                models: ["*"]
                keys:
                  - key: sk-alpha-1
            tenants:
              - name: team-a
                token: token-a
                rpd: 100
              - name: team-b
                token: token-b
            admin:
              token: admin-secret-token
            """;

    private final ObjectMapper mapper = new ObjectMapper();
    private final MutableClock clock = new MutableClock();

    @TempDir
    Path dir;

    private static HttpResponse<String> admin(GatewayInstance gateway, String method, String path, String body) {
        return gateway.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path))
                .header("Authorization", "Bearer admin-secret-token").header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    @Test
    void should_keep_created_tenants_overrides_and_deletions_across_a_restart() throws Exception {
        try (FakeUpstream upstream = new FakeUpstream()) {
            String yaml = YAML.replace("UPSTREAM", upstream.baseUrl());
            String token;
            try (GatewayInstance first = GatewayInstance.start(dir, "gw", yaml, clock)) {
                token = mapper.readTree(admin(first, "POST", "/admin/tenants", "{\"name\":\"team-c\",\"rpm\":30}").body())
                        .path("token").asText();
                assertThat(admin(first, "PATCH", "/admin/tenants/team-a", "{\"rpd\":7}").statusCode()).isEqualTo(200);
                assertThat(admin(first, "DELETE", "/admin/tenants/team-b", null).statusCode()).isEqualTo(200);
            }

            try (GatewayInstance second = GatewayInstance.start(dir, "gw", yaml, clock)) {
                assertThat(second.chat("gpt-test", token).statusCode()).isEqualTo(200);
                assertThat(second.chat("gpt-test", "token-a").statusCode()).isEqualTo(200);
                assertThat(second.chat("gpt-test", "token-b").statusCode()).isEqualTo(401);
                JsonNode teamA = mapper.readTree(admin(second, "GET", "/admin/tenants/team-a", null).body());
                assertThat(teamA.path("rpd").asInt()).isEqualTo(7);
                assertThat(teamA.path("origin").asText()).isEqualTo("file");
                JsonNode teamC = mapper.readTree(admin(second, "GET", "/admin/tenants/team-c", null).body());
                assertThat(teamC.path("rpm").asInt()).isEqualTo(30);
                assertThat(teamC.path("origin").asText()).isEqualTo("api");
            }
        }
    }
}
