package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * design §7 sub-pools through real HTTP: a tenant's own keys first, the shared keys when they cannot serve (if it
 * may borrow), never another tenant's keys, within each channel before the fallback; X-KeyPool-Pool says which,
 * and /admin/status splits the usage.
 */
class TenantPoolsTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    fallback: [beta]
                    keys:
                      - key: sk-shared-1
                      - key: sk-a-own-1
                        tenant: team-a
                      - key: sk-a-own-2
                        tenant: team-a
                      - key: sk-b-own-1
                        tenant: team-b
                      - key: sk-c-own-1
                        tenant: team-c
                  - name: beta
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-beta-shared
                tenants:
                  - name: team-a
                    token: token-a
                  - name: team-b
                    token: token-b
                    borrow: false
                  - name: team-c
                    token: token-c
                admin:
                  token: admin-secret
                queue:
                  maxWait: 0s
                """;
    }


    @Test
    void should_serve_a_tenant_from_its_own_keys_while_they_can() throws Exception {
        for (int i = 0; i < 6; i++) {
            HttpResponse<String> r = chatAs("token-a", "gpt-4o-mini");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("X-KeyPool-Pool")).contains("own");
            assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        }

        assertThat(upstream.hits("sk-a-own-1")).isEqualTo(3);
        assertThat(upstream.hits("sk-a-own-2")).isEqualTo(3);
        assertThat(upstream.hits("sk-shared-1")).isZero();
        assertThat(upstream.hits("sk-b-own-1") + upstream.hits("sk-c-own-1")).isZero();
    }

    @Test
    void should_borrow_a_shared_key_of_the_same_channel_when_its_own_keys_are_cooling() throws Exception {
        upstream.answer("sk-a-own-1", 429, "60", null).answer("sk-a-own-2", 429, "60", null);

        HttpResponse<String> first = chatAs("token-a", "gpt-4o-mini");
        HttpResponse<String> second = chatAs("token-a", "gpt-4o-mini");

        for (HttpResponse<String> r : java.util.List.of(first, second)) {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("X-KeyPool-Pool")).contains("shared");
            // borrowed within alpha, before any fallback to beta
            assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        }
        assertThat(first.headers().firstValue("X-KeyPool-Attempts")).contains("3");
        // the own keys now cool: the second request goes to the shared key at once
        assertThat(second.headers().firstValue("X-KeyPool-Attempts")).contains("1");
        assertThat(upstream.hits("sk-shared-1")).isEqualTo(2);
        assertThat(upstream.hits("sk-beta-shared")).isZero();

        JsonNode usage = tenant("team-a", "admin-secret").path("usage");
        assertThat(usage.path("borrowed").path("requests").asLong()).isEqualTo(2);
        assertThat(usage.path("borrowed").path("promptTokens").asLong()).isEqualTo(22);
        assertThat(usage.path("borrowed").path("completionTokens").asLong()).isEqualTo(14);
        assertThat(usage.path("own").path("requests").asLong()).isZero();

        // cooled down: back to its own keys
        upstream.healthy("sk-a-own-1");
        clock.advance(Duration.ofSeconds(61));
        HttpResponse<String> own = chatAs("token-a", "gpt-4o-mini");
        assertThat(own.headers().firstValue("X-KeyPool-Pool")).contains("own");
        assertThat(tenant("team-a", "admin-secret").path("usage").path("own").path("requests").asLong()).isEqualTo(1);
    }

    @Test
    void should_answer_quota_exhausted_to_a_tenant_that_may_not_borrow() throws Exception {
        upstream.answer("sk-b-own-1", 429, "30", null);

        HttpResponse<String> first = chatAs("token-b", "gpt-4o-mini");
        HttpResponse<String> second = chatAs("token-b", "gpt-4o-mini");

        assertThat(first.statusCode()).isEqualTo(429);
        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(JSON.readTree(second.body()).path("error").path("code").asText()).isEqualTo("quota_exhausted");
        assertThat(second.headers().firstValue("Retry-After")).contains("30");
        assertThat(upstream.hits("sk-b-own-1")).isEqualTo(1);
        // neither the shared keys of its channels nor anyone else's
        assertThat(upstream.totalHits()).isEqualTo(1);
    }

    @Test
    void should_never_touch_another_tenants_keys() throws Exception {
        upstream.answer("sk-shared-1", 503).answer("sk-a-own-1", 429, "60", null).answer("sk-a-own-2", 429, "60", null);

        HttpResponse<String> r = chatAs("token-a", "gpt-4o-mini");

        // own keys cooling, the shared key failing: the fallback channel serves, team-b's and team-c's keys untouched
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(r.headers().firstValue("X-KeyPool-Pool")).contains("shared");
        assertThat(upstream.hits("sk-b-own-1")).isZero();
        assertThat(upstream.hits("sk-c-own-1")).isZero();
        for (int i = 0; i < 4; i++) {
            assertThat(chatAs("token-c", "gpt-4o-mini").headers().firstValue("X-KeyPool-Pool")).contains("own");
        }
        assertThat(upstream.hits("sk-c-own-1")).isEqualTo(4);
        assertThat(upstream.hits("sk-b-own-1")).isZero();
    }

}
