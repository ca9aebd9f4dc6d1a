package dev.keypool.it;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * POST /admin/tenants creates a tenant at runtime and answers its token once: the token serves chat completions at
 * once, and appears in no later answer of the admin API, no log line and not in the database file (only its SHA-256).
 */
class TenantCreateTest extends TenantAdminTestSupport {

    @Test
    void should_serve_a_created_tenant_and_show_its_token_only_once() throws Exception {
        HttpResponse<String> created = admin().post("/admin/tenants", "{\"name\":\"team-c\",\"rpm\":60,\"models\":[\"gpt-*\"]}");

        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode answer = mapper.readTree(created.body());
        String token = answer.path("token").asText();
        assertThat(token).matches("kp-[0-9A-Za-z]{43}");
        assertThat(answer.path("origin").asText()).isEqualTo("api");
        assertThat(answer.path("rpm").asInt()).isEqualTo(60);
        assertThat(chatAs(token, "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs(token, "claude-x").statusCode()).isEqualTo(403);
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);

        HttpResponse<String> list = admin().get("/admin/tenants");
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(list.body()).path("tenants").findValuesAsText("name")).containsExactly("team-a", "team-c");
        assertThat(list.body()).doesNotContain(token, "token-a");
        HttpResponse<String> one = admin().get("/admin/tenants/team-c");
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(one.body()).doesNotContain(token);
        assertThat(admin().get("/admin/status").body()).doesNotContain(token);
        assertThat(admin().get("/admin/events").body()).contains("Tenant team-c created").doesNotContain(token);
        assertThat(logs.all()).contains("Tenant team-c created").doesNotContain(token);
        Path stateDir = Path.of(context.resolvePropertyPlaceholders("{{state.dir}}"));
        try (Stream<Path> files = Files.list(stateDir)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                assertThat(new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.ISO_8859_1))
                        .as(file.toString()).doesNotContain(token);
            }
        }
    }

    @Test
    void should_refuse_a_second_tenant_of_the_same_name() throws Exception {
        assertThat(admin().post("/admin/tenants", "{\"name\":\"team-c\"}").statusCode()).isEqualTo(201);

        HttpResponse<String> again = admin().post("/admin/tenants", "{\"name\":\"team-c\"}");
        HttpResponse<String> fileTenant = admin().post("/admin/tenants", "{\"name\":\"team-a\"}");

        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(mapper.readTree(again.body()).path("error").path("code").asText()).isEqualTo("tenant_conflict");
        assertThat(fileTenant.statusCode()).isEqualTo(409);
    }

    @Test
    void should_name_the_field_of_an_invalid_tenant() throws Exception {
        HttpResponse<String> refused = admin().post("/admin/tenants",
                "{\"name\":\"team-c\",\"rpm\":-1,\"channels\":[\"nowhere\"],\"colour\":\"red\"}");

        assertThat(refused.statusCode()).isEqualTo(400);
        String message = mapper.readTree(refused.body()).path("error").path("message").asText();
        assertThat(message).contains("rpm: must be >= 0", "channels[0]: unknown channel 'nowhere'", "colour: unknown field");
        assertThat(admin().get("/admin/tenants/team-c").statusCode()).isEqualTo(404);
    }
}
