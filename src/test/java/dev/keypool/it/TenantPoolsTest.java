package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * design §7 sub-pools through real HTTP: a tenant's own keys first, the shared keys when they cannot serve (if it
 * may borrow), never another tenant's keys, within each channel before the fallback; X-KeyPool-Pool says which,
 * and /admin/status splits the usage. The tests share one gateway, each with channels, keys and tenants of its own
 * (named after the test).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantPoolsTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Each test's channels alpha (falling back to beta) and beta, and its tenants a, b (who may not borrow) and c. */
    @Override
    protected String keypoolYaml() {
        StringBuilder channels = new StringBuilder("channels:\n");
        StringBuilder tenants = new StringBuilder("tenants:\n");
        for (String test : testNames()) {
            channels.append("""
                      - name: %1$s-alpha
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        fallback: [%1$s-beta]
                        keys:
                          - key: sk-shared-1-%1$s
                          - key: sk-a-own-1-%1$s
                            tenant: %1$s-a
                          - key: sk-a-own-2-%1$s
                            tenant: %1$s-a
                          - key: sk-b-own-1-%1$s
                            tenant: %1$s-b
                          - key: sk-c-own-1-%1$s
                            tenant: %1$s-c
                      - name: %1$s-beta
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        keys:
                          - key: sk-beta-shared-%1$s
                    """.formatted(test));
            tenants.append("""
                      - name: %1$s-a
                        token: token-a-%1$s
                      - name: %1$s-b
                        token: token-b-%1$s
                        borrow: false
                      - name: %1$s-c
                        token: token-c-%1$s
                    """.formatted(test));
        }
        return channels + tenants.toString() + """
                admin:
                  token: admin-secret
                queue:
                  maxWait: 0s
                """;
    }

    /** This test's key of this name. */
    private String key(String name) {
        return name + "-" + testName();
    }

    private String tenantOf(String letter) {
        return testName() + "-" + letter;
    }

    private String channelOf(String name) {
        return testName() + "-" + name;
    }

    /** A chat request of this test's tenant a, b or c, for this test's model. */
    private HttpResponse<String> chatAsTenant(String letter) throws Exception {
        return chatAs("token-" + letter + "-" + testName(), testName());
    }

    @Test
    void should_serve_a_tenant_from_its_own_keys_while_they_can() throws Exception {
        for (int i = 0; i < 6; i++) {
            HttpResponse<String> r = chatAsTenant("a");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("X-KeyPool-Pool")).contains("own");
            assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains(channelOf("alpha"));
        }

        assertThat(upstream.hits(key("sk-a-own-1"))).isEqualTo(3);
        assertThat(upstream.hits(key("sk-a-own-2"))).isEqualTo(3);
        assertThat(upstream.hits(key("sk-shared-1"))).isZero();
        assertThat(upstream.hits(key("sk-b-own-1")) + upstream.hits(key("sk-c-own-1"))).isZero();
    }

    @Test
    void should_borrow_a_shared_key_of_the_same_channel_when_its_own_keys_are_cooling() throws Exception {
        upstream.answer(key("sk-a-own-1"), 429, "60", null).answer(key("sk-a-own-2"), 429, "60", null);

        HttpResponse<String> first = chatAsTenant("a");
        HttpResponse<String> second = chatAsTenant("a");

        for (HttpResponse<String> r : java.util.List.of(first, second)) {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("X-KeyPool-Pool")).contains("shared");
            // borrowed within alpha, before any fallback to beta
            assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains(channelOf("alpha"));
        }
        assertThat(first.headers().firstValue("X-KeyPool-Attempts")).contains("3");
        // the own keys now cool: the second request goes to the shared key at once
        assertThat(second.headers().firstValue("X-KeyPool-Attempts")).contains("1");
        assertThat(upstream.hits(key("sk-shared-1"))).isEqualTo(2);
        assertThat(upstream.hits(key("sk-beta-shared"))).isZero();

        JsonNode usage = tenant(tenantOf("a"), "admin-secret").path("usage");
        assertThat(usage.path("borrowed").path("requests").asLong()).isEqualTo(2);
        assertThat(usage.path("borrowed").path("promptTokens").asLong()).isEqualTo(22);
        assertThat(usage.path("borrowed").path("completionTokens").asLong()).isEqualTo(14);
        assertThat(usage.path("own").path("requests").asLong()).isZero();

        // cooled down: back to its own keys
        upstream.healthy(key("sk-a-own-1"));
        clock.advance(Duration.ofSeconds(61));
        HttpResponse<String> own = chatAsTenant("a");
        assertThat(own.headers().firstValue("X-KeyPool-Pool")).contains("own");
        assertThat(tenant(tenantOf("a"), "admin-secret").path("usage").path("own").path("requests").asLong()).isEqualTo(1);
    }

    @Test
    void should_answer_quota_exhausted_to_a_tenant_that_may_not_borrow() throws Exception {
        upstream.answer(key("sk-b-own-1"), 429, "30", null);

        HttpResponse<String> first = chatAsTenant("b");
        HttpResponse<String> second = chatAsTenant("b");

        assertThat(first.statusCode()).isEqualTo(429);
        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(JSON.readTree(second.body()).path("error").path("code").asText()).isEqualTo("quota_exhausted");
        assertThat(second.headers().firstValue("Retry-After")).contains("30");
        assertThat(upstream.hits(key("sk-b-own-1"))).isEqualTo(1);
        // neither the shared keys of its channels nor anyone else's
        assertThat(upstream.totalHits()).isEqualTo(1);
    }

    @Test
    void should_never_touch_another_tenants_keys() throws Exception {
        upstream.answer(key("sk-shared-1"), 503).answer(key("sk-a-own-1"), 429, "60", null).answer(key("sk-a-own-2"), 429, "60", null);

        HttpResponse<String> r = chatAsTenant("a");

        // own keys cooling, the shared key failing: the fallback channel serves, team-b's and team-c's keys untouched
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains(channelOf("beta"));
        assertThat(r.headers().firstValue("X-KeyPool-Pool")).contains("shared");
        assertThat(upstream.hits(key("sk-b-own-1"))).isZero();
        assertThat(upstream.hits(key("sk-c-own-1"))).isZero();
        for (int i = 0; i < 4; i++) {
            assertThat(chatAsTenant("c").headers().firstValue("X-KeyPool-Pool")).contains("own");
        }
        assertThat(upstream.hits(key("sk-c-own-1"))).isEqualTo(4);
        assertThat(upstream.hits(key("sk-b-own-1"))).isZero();
    }

}
