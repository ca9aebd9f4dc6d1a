package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deleted tenant, or one whose {@code expiresAt} the clock has passed, gets 401 {@code invalid_api_key} from its next
 * request on; deleting the last tenant does not open the gateway.
 */
class TenantDeleteTest extends TenantAdminTestSupport {

    @Test
    void should_refuse_a_deleted_tenant_at_its_next_request_and_stay_closed_without_tenants() throws Exception {
        AdminCalls admin = admin();
        String token = mapper.readTree(admin.post("/admin/tenants", "{\"name\":\"team-c\"}").body()).path("token").asText();
        assertThat(chatAs(token, "gpt-test").statusCode()).isEqualTo(200);

        assertThat(admin.call("DELETE", "/admin/tenants/team-c", null).statusCode()).isEqualTo(200);
        assertThat(admin.call("DELETE", "/admin/tenants/team-a", null).statusCode()).isEqualTo(200);

        HttpResponse<String> refused = chatAs(token, "gpt-test");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(mapper.readTree(refused.body()).path("error").path("code").asText()).isEqualTo("invalid_api_key");
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(401);
        assertThat(chatAs(null, "gpt-test").statusCode()).isEqualTo(401);
        assertThat(admin.get("/admin/tenants/team-c").statusCode()).isEqualTo(404);
        assertThat(admin.get("/admin/events").body()).contains("Tenant team-c gone (admin API)");
    }

    @Test
    void should_refuse_a_tenant_once_the_clock_passes_its_expiry() throws Exception {
        AdminCalls admin = admin();
        String expiry = clock.instant().plus(Duration.ofHours(1)).toString();
        String token = mapper.readTree(admin.post("/admin/tenants",
                "{\"name\":\"team-c\",\"expiresAt\":\"" + expiry + "\"}").body()).path("token").asText();
        assertThat(chatAs(token, "gpt-test").statusCode()).isEqualTo(200);

        clock.advance(Duration.ofHours(1));

        assertThat(chatAs(token, "gpt-test").statusCode()).isEqualTo(401);
        assertThat(admin.get("/admin/tenants/team-c").body()).contains("\"expired\":true");
        // an operator extends it
        assertThat(admin.call("PATCH", "/admin/tenants/team-c", "{\"expiresAt\":null}").statusCode()).isEqualTo(200);
        assertThat(chatAs(token, "gpt-test").statusCode()).isEqualTo(200);
    }
}
