package dev.keypool.it;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * PATCH /admin/tenants/{name} lays a field over keypool.yaml's from the next request on, and {@code null} gives the
 * file's value back.
 */
class TenantPatchTest extends GatewayTestSupport {

    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
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
                admin:
                  token: admin-secret-token
                queue:
                  maxWait: 0s
                """;
    }

    @Test
    void should_apply_a_patched_rpm_at_the_next_request_and_give_the_files_value_back_on_null() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);

        HttpResponse<String> patched = admin.call("PATCH", "/admin/tenants/team-a", "{\"rpm\":2,\"burst\":2,\"rpd\":50}");

        assertThat(patched.statusCode()).isEqualTo(200);
        JsonNode view = mapper.readTree(patched.body());
        assertThat(view.path("rpm").asInt()).isEqualTo(2);
        assertThat(view.path("origin").asText()).isEqualTo("file");
        assertThat(view.path("overridden").toString()).isEqualTo("[\"rpm\",\"burst\",\"rpd\"]");
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);
        HttpResponse<String> limited = chatAs("token-a", "gpt-test");
        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(mapper.readTree(limited.body()).path("error").path("code").asText()).isEqualTo("tenant_rate_limited");

        HttpResponse<String> back = admin.call("PATCH", "/admin/tenants/team-a", "{\"rpm\":null,\"burst\":null}");

        assertThat(back.statusCode()).isEqualTo(200);
        JsonNode restored = mapper.readTree(back.body());
        assertThat(restored.path("rpm").isNull()).isTrue();
        assertThat(restored.path("rpd").asInt()).isEqualTo(50);
        assertThat(restored.path("overridden").toString()).isEqualTo("[\"rpd\"]");
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);
        assertThat(admin.call("PATCH", "/admin/tenants/team-a", "{\"rpd\":null}").body()).contains("\"rpd\":100");
        assertThat(admin.get("/admin/events").body()).contains("Tenant team-a changed: rpm, burst, rpd (admin API)");
    }

    @Test
    void should_keep_what_the_api_set_and_the_tenants_it_created_across_a_reload_of_the_file() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        String token = mapper.readTree(admin.post("/admin/tenants", "{\"name\":\"team-c\"}").body()).path("token").asText();
        assertThat(admin.call("PATCH", "/admin/tenants/team-a", "{\"rpd\":7}").statusCode()).isEqualTo(200);
        Path file = Path.of(context.resolvePropertyPlaceholders("{{keypool.config}}"));
        Files.writeString(file, keypoolYaml().replace("UPSTREAM", upstream.baseUrl()).replace("rpd: 100", "rpd: 200"));

        HttpResponse<String> reloaded = admin.post("/admin/reload");

        assertThat(reloaded.statusCode()).isEqualTo(200);
        assertThat(chatAs(token, "gpt-test").statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(admin.get("/admin/tenants/team-a").body()).path("rpd").asInt()).isEqualTo(7);
        assertThat(admin.call("PATCH", "/admin/tenants/team-a", "{\"rpd\":null}").body()).contains("\"rpd\":200");
    }

    @Test
    void should_refuse_a_patch_that_names_an_unknown_tenant_or_the_token() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));

        HttpResponse<String> unknown = admin.call("PATCH", "/admin/tenants/nobody", "{\"rpm\":5}");
        HttpResponse<String> token = admin.call("PATCH", "/admin/tenants/team-a", "{\"token\":\"mine\"}");
        HttpResponse<String> burstAlone = admin.call("PATCH", "/admin/tenants/team-a", "{\"burst\":5}");

        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(mapper.readTree(unknown.body()).path("error").path("code").asText()).isEqualTo("tenant_not_found");
        assertThat(token.statusCode()).isEqualTo(400);
        assertThat(token.body()).contains("token: is made by the gateway").doesNotContain("mine");
        assertThat(burstAlone.statusCode()).isEqualTo(400);
        assertThat(burstAlone.body()).contains("burst: needs rpm");
    }
}
