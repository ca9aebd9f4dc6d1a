package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.LogCapture;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * design §7 through real HTTP: tenant tokens (401), what a tenant may use (403), its rpm bucket with burst, its token
 * limit estimated and reconciled, its budget, and OpenAI's x-ratelimit-* headers on its answers. The tests share one
 * gateway: a tenant with limits (bucket, tokens, spender) is one test's alone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantAccessTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Everything logged from the gateway's start on: the class's shared log is emptied before each test. */
    private final LogCapture bootLogs = LogCapture.attach();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    fallback: [beta]
                    pricing:
                      priced-model: {input: 50000, output: 50000}
                    keys:
                      - key: sk-alpha-1
                  - name: beta
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-beta-1
                  - name: gamma
                    baseUrl: UPSTREAM
                    models: [glm-4-flash, claude-3, gpt-4o]
                    keys:
                      - key: sk-gamma-1
                tenants:
                  - name: bucket
                    token: token-bucket
                    rpm: 60
                    burst: 10
                  - name: narrow
                    token: token-narrow
                    channels: [beta, gamma]
                    models: ["gpt-*", glm-4-flash]
                  - name: tokens
                    token: token-tokens
                    tpm: 800
                  - name: spender
                    token: token-spender
                    budget: {daily: 1.0}
                admin:
                  token: admin-secret
                queue:
                  maxWait: 0s
                """;
    }

    @AfterAll
    void closeBootLogs() {
        bootLogs.close();
    }

    private static String code(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body()).path("error").path("code").asText();
    }

    @Test
    void should_refuse_requests_without_a_known_tenant_token() throws Exception {
        HttpResponse<String> none = chatAs(null, "gpt-4o-mini");
        HttpResponse<String> unknown = chatAs("token-nobody", "gpt-4o-mini");
        HttpResponse<String> otherScheme = http.send(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("Authorization", "Basic token-narrow")
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-4o-mini"))).build(), HttpResponse.BodyHandlers.ofString());

        for (HttpResponse<String> r : java.util.List.of(none, unknown, otherScheme)) {
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(code(r)).isEqualTo("invalid_api_key");
        }
        assertThat(upstream.totalHits()).isZero();
        assertThat(chatAs("token-narrow", "gpt-4o-mini").statusCode()).isEqualTo(200);
        assertThat(logs.all()).doesNotContain("token-nobody").doesNotContain("token-narrow");
        // a tenant's token goes nowhere: not to the provider, not into status
        assertThat(upstream.received()).allSatisfy(r -> assertThat(r.headers().toString()).doesNotContain("token-narrow"));
        assertThat(getWithToken("/admin/status", "admin-secret").body()).contains("\"bucket\"").doesNotContain("token-");
        assertThat(bootLogs.messages(Level.INFO)).anyMatch(line -> line.startsWith("4 tenants (bucket, narrow, tokens, spender)"));
    }

    @Test
    void should_take_the_token_as_x_api_key_too() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").header("x-api-key", "token-narrow")
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-4o-mini"))).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
    }

    @Test
    void should_refuse_a_model_or_channel_the_tenant_may_not_use() throws Exception {
        HttpResponse<String> model = chatAs("token-narrow", "claude-3");
        HttpResponse<String> channel = chatAs("token-narrow", "alpha/gpt-4o");

        assertThat(model.statusCode()).isEqualTo(403);
        assertThat(code(model)).isEqualTo("model_not_allowed");
        assertThat(channel.statusCode()).isEqualTo(403);
        assertThat(code(channel)).isEqualTo("model_not_allowed");
        assertThat(JSON.readTree(channel.body()).path("error").path("message").asText()).contains("alpha");
        assertThat(upstream.totalHits()).isZero();
    }

    @Test
    void should_walk_only_the_channels_the_tenant_may_use() throws Exception {
        // alpha is the model's primary, but this tenant may use beta only: served there, alpha never called
        HttpResponse<String> r = chatAs("token-narrow", "gpt-4o-mini");
        HttpResponse<String> wildcard = chatAs("token-narrow", "gpt-4.1-nano");
        HttpResponse<String> exact = chatAs("token-narrow", "glm-4-flash");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(wildcard.statusCode()).isEqualTo(200);
        assertThat(exact.statusCode()).isEqualTo(200);
        assertThat(upstream.hits("sk-alpha-1")).isZero();
        assertThat(upstream.hits("sk-beta-1")).isEqualTo(3);
    }

    @Test
    void should_let_a_burst_of_ten_through_at_once_and_then_one_request_a_second() throws Exception {
        for (int i = 1; i <= 10; i++) {
            HttpResponse<String> r = chatAs("token-bucket", "gpt-4o-mini");
            assertThat(r.statusCode()).as("request %d of the burst", i).isEqualTo(200);
            assertThat(r.headers().firstValue("x-ratelimit-limit-requests")).contains("60");
            assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).contains(String.valueOf(10 - i));
            assertThat(r.headers().firstValue("x-ratelimit-reset-requests")).contains(i + "s");
            assertThat(r.headers().firstValue("x-ratelimit-limit-tokens")).isEmpty();
        }
        HttpResponse<String> refused = chatAs("token-bucket", "gpt-4o-mini");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(code(refused)).isEqualTo("tenant_rate_limited");
        assertThat(refused.headers().firstValue("Retry-After")).contains("1");
        assertThat(refused.headers().firstValue("x-ratelimit-remaining-requests")).contains("0");
        assertThat(refused.headers().firstValue("x-ratelimit-reset-requests")).contains("10s");
        assertThat(upstream.totalHits()).isEqualTo(10);

        clock.advance(Duration.ofSeconds(1));
        assertThat(chatAs("token-bucket", "gpt-4o-mini").statusCode()).isEqualTo(200);
        assertThat(chatAs("token-bucket", "gpt-4o-mini").statusCode()).isEqualTo(429);
        clock.advance(Duration.ofMillis(500));
        assertThat(chatAs("token-bucket", "gpt-4o-mini").statusCode()).isEqualTo(429);
        clock.advance(Duration.ofMillis(500));
        assertThat(chatAs("token-bucket", "gpt-4o-mini").statusCode()).isEqualTo(200);
        assertThat(upstream.totalHits()).isEqualTo(12);
        // metrics label the tenant's answers, served and refused
        java.util.List<String> requests = get("/observe/metrics").body().lines()
                .filter(line -> line.startsWith("keypool_requests_total{")).toList();
        assertThat(requests).anySatisfy(line -> assertThat(line).contains("tenant=\"bucket\"").contains("outcome=\"success\"")
                .endsWith(" 12.0"));
        assertThat(requests).anySatisfy(line -> assertThat(line).contains("tenant=\"bucket\"")
                .contains("outcome=\"tenant_rate_limited\"").endsWith(" 3.0"));
    }

    @Test
    void should_limit_tokens_by_estimate_and_reconcile_with_the_usage_of_answers_and_streams() throws Exception {
        // each request is estimated at its prompt plus 300 for max_tokens; the fake provider reports 18 (11 + 7) for
        // a plain answer and 16 for a stream. Were the estimates kept, the third request would be refused.
        String plain = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":300,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        String stream = plain.replace("\"max_tokens\"", "\"stream\":true,\"max_tokens\"");

        HttpResponse<String> first = postAs("token-tokens", plain);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("x-ratelimit-limit-tokens")).contains("800");
        long estimate = 800 - Long.parseLong(first.headers().firstValue("x-ratelimit-remaining-tokens").orElseThrow());
        assertThat(estimate).isBetween(300L, 320L);
        HttpResponse<String> streamed = postAs("token-tokens", stream);
        assertThat(streamed.body()).contains("data: [DONE]");
        assertThat(Long.parseLong(streamed.headers().firstValue("x-ratelimit-remaining-tokens").orElseThrow()))
                .isEqualTo(800 - 18 - estimate);
        HttpResponse<String> third = postAs("token-tokens", plain);
        assertThat(third.statusCode()).isEqualTo(200);
        assertThat(Long.parseLong(third.headers().firstValue("x-ratelimit-remaining-tokens").orElseThrow()))
                .isEqualTo(800 - 18 - 16 - estimate);

        // 18 + 16 + 18 = 52 used: one more estimate fits (52 + ~310 <= 800); then 70 used, and ~760 does not
        assertThat(postAs("token-tokens", plain).statusCode()).isEqualTo(200);
        HttpResponse<String> refused = postAs("token-tokens", plain.replace("300", "750"));
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(code(refused)).isEqualTo("tenant_rate_limited");
        assertThat(JSON.readTree(refused.body()).path("error").path("message").asText()).contains("800 tokens per minute");
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 61L);
        assertThat(upstream.totalHits()).isEqualTo(4);

        JsonNode tenant = tenant("tokens", "admin-secret");
        assertThat(tenant.path("usage").path("own").path("requests").asLong()).isZero();
        assertThat(tenant.path("usage").path("borrowed").path("requests").asLong()).isEqualTo(4);
        assertThat(tenant.path("usage").path("borrowed").path("promptTokens").asLong()).isEqualTo(44);
    }

    @Test
    void should_refuse_with_budget_exceeded_until_the_day_ends() throws Exception {
        // 18 tokens at 50,000 USD per million: 0.90 USD a call against a 1.00 USD daily budget
        assertThat(chatAs("token-spender", "priced-model").statusCode()).isEqualTo(200);
        assertThat(chatAs("token-spender", "priced-model").statusCode()).isEqualTo(200);

        HttpResponse<String> refused = chatAs("token-spender", "priced-model");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(code(refused)).isEqualTo("budget_exceeded");
        Instant midnight = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
        long untilMidnight = (Duration.between(clock.instant(), midnight).toMillis() + 999) / 1000;
        assertThat(refused.headers().firstValue("Retry-After")).contains(String.valueOf(untilMidnight));
        assertThat(upstream.totalHits()).isEqualTo(2);
        assertThat(tenant("spender", "admin-secret").path("spentTodayUsd").asDouble()).isEqualTo(1.8, org.assertj.core.data.Offset.offset(1e-9));

        clock.set(midnight);
        assertThat(chatAs("token-spender", "priced-model").statusCode()).isEqualTo(200);
    }

    @Test
    void should_list_only_the_models_a_tenant_may_use() throws Exception {
        HttpResponse<String> none = get("/v1/models");
        HttpResponse<String> narrow = getWithToken("/v1/models", "token-narrow");

        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(narrow.statusCode()).isEqualTo(200);
        // "*" channels list no names; of gamma's, claude-3 is not among its models
        assertThat(JSON.readTree(narrow.body()).path("data")).extracting(m -> m.path("id").asText())
                .containsExactly("glm-4-flash", "gpt-4o");
        JsonNode all = JSON.readTree(getWithToken("/v1/models", "token-bucket").body()).path("data");
        assertThat(all).extracting(m -> m.path("id").asText()).containsExactly("glm-4-flash", "claude-3", "gpt-4o");
    }

}
