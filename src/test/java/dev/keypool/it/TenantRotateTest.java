package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * POST /admin/tenants/{name}/rotate answers a new token; the old one is refused from the next request on, or, with
 * {@code graceSeconds}, taken until the clock passes the grace.
 */
class TenantRotateTest extends TenantAdminTestSupport {

    private String create(AdminCalls admin) throws Exception {
        return mapper.readTree(admin.post("/admin/tenants", "{\"name\":\"team-c\"}").body()).path("token").asText();
    }

    @Test
    void should_refuse_the_old_token_at_once_without_grace() throws Exception {
        AdminCalls admin = admin();
        String old = create(admin);

        HttpResponse<String> rotated = admin.post("/admin/tenants/team-c/rotate");

        assertThat(rotated.statusCode()).isEqualTo(200);
        String fresh = mapper.readTree(rotated.body()).path("token").asText();
        assertThat(fresh).startsWith("kp-").isNotEqualTo(old);
        assertThat(chatAs(old, "gpt-test").statusCode()).isEqualTo(401);
        assertThat(chatAs(fresh, "gpt-test").statusCode()).isEqualTo(200);
        // a tenant of keypool.yaml too: the file's token is replaced
        String fileFresh = mapper.readTree(admin.post("/admin/tenants/team-a/rotate", "{\"graceSeconds\":0}").body())
                .path("token").asText();
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(401);
        assertThat(chatAs(fileFresh, "gpt-test").statusCode()).isEqualTo(200);
        assertThat(logs.all()).contains("Tenant team-c changed, token rotated").doesNotContain(old, fresh, fileFresh);
    }

    @Test
    void should_take_both_tokens_until_the_grace_has_passed() throws Exception {
        AdminCalls admin = admin();
        String old = create(admin);

        HttpResponse<String> rotated = admin.post("/admin/tenants/team-c/rotate", "{\"graceSeconds\":300}");

        JsonNode answer = mapper.readTree(rotated.body());
        String fresh = answer.path("token").asText();
        assertThat(answer.path("previousTokenValidUntil").asText()).isEqualTo(clock.instant().plusSeconds(300).toString());
        assertThat(chatAs(old, "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs(fresh, "gpt-test").statusCode()).isEqualTo(200);
        clock.advance(Duration.ofSeconds(299));
        assertThat(chatAs(old, "gpt-test").statusCode()).isEqualTo(200);
        clock.advance(Duration.ofSeconds(1));
        assertThat(chatAs(old, "gpt-test").statusCode()).isEqualTo(401);
        assertThat(chatAs(fresh, "gpt-test").statusCode()).isEqualTo(200);
    }

    @Test
    void should_refuse_a_grace_that_is_not_a_whole_number_of_seconds() throws Exception {
        AdminCalls admin = admin();
        create(admin);

        HttpResponse<String> refused = admin.post("/admin/tenants/team-c/rotate", "{\"graceSeconds\":\"soon\"}");

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("graceSeconds: must be a whole number");
    }
}
