package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

/**
 * A model group's response cache (design §16 {@code cache}): an identical deterministic chat request is answered from
 * it without a provider call, per tenant unless the group shares it; a client opts out with Cache-Control; a hit
 * counts against the tenant's rpm, not its budget. Each test asks its own prompt, so that they share one gateway.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResponseCacheTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [alpha-chat]
                    pricing:
                      alpha-chat: {input: 50000, output: 50000}
                    keys:
                      - key: sk-alpha-1
                modelGroups:
                  - name: cached
                    cache: {ttl: 10m}
                    targets:
                      - {channel: alpha, model: alpha-chat}
                  - name: cached-shared
                    cache: {ttl: 10m, shared: true, when: always}
                    targets:
                      - {channel: alpha, model: alpha-chat}
                tenants:
                  - name: team-a
                    token: tok-team-a
                  - name: team-b
                    token: tok-team-b
                  - name: metered
                    token: tok-metered
                    rpm: 60
                    budget: {daily: 100}
                admin:
                  token: admin-secret
                """;
    }

    private HttpResponse<String> ask(String token, String model, String prompt, String extra, String cacheControl)
            throws Exception {
        String body = "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]"
                + extra + "}";
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (cacheControl != null) {
            request.header("Cache-Control", cacheControl);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> ask(String token, String model, String prompt, String extra) throws Exception {
        return ask(token, model, prompt, extra, null);
    }

    @Test
    void should_answer_an_identical_deterministic_request_from_the_cache_without_calling_the_provider() throws Exception {
        HttpResponse<String> first = ask("tok-team-a", "cached", "what is two and two", ",\"temperature\":0,\"user\":\"u1\"");
        // the same request from another end user, and without the stream field: the same entry
        HttpResponse<String> second = ask("tok-team-a", "cached", "what is two and two",
                ",\"temperature\":0,\"user\":\"u2\",\"stream\":false");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("X-KeyPool-Cache")).contains("miss");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.headers().firstValue("X-KeyPool-Cache")).contains("hit");
        assertThat(second.headers().firstValue("X-KeyPool-Channel")).isEmpty();
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(1);
    }

    @Test
    void should_cache_a_request_with_a_seed_but_not_one_that_asks_for_no_repeatable_answer() throws Exception {
        ask("tok-team-a", "cached", "seeded", ",\"seed\":7");
        assertThat(ask("tok-team-a", "cached", "seeded", ",\"seed\":7").headers().firstValue("X-KeyPool-Cache"))
                .contains("hit");

        HttpResponse<String> warm = ask("tok-team-a", "cached", "tell me a story", ",\"temperature\":0.8");
        HttpResponse<String> again = ask("tok-team-a", "cached", "tell me a story", ",\"temperature\":0.8");

        assertThat(warm.headers().firstValue("X-KeyPool-Cache")).isEmpty();
        assertThat(again.headers().firstValue("X-KeyPool-Cache")).isEmpty();
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(3);
    }

    @Test
    void should_bypass_the_cache_when_the_client_sends_cache_control_no_cache() throws Exception {
        ask("tok-team-a", "cached", "fresh please", ",\"temperature\":0");

        HttpResponse<String> bypassed = ask("tok-team-a", "cached", "fresh please", ",\"temperature\":0", "no-cache");

        assertThat(bypassed.statusCode()).isEqualTo(200);
        assertThat(bypassed.headers().firstValue("X-KeyPool-Cache")).isEmpty();
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(2);
        // the entry is still there for a request that does not opt out
        assertThat(ask("tok-team-a", "cached", "fresh please", ",\"temperature\":0").headers()
                .firstValue("X-KeyPool-Cache")).contains("hit");
    }

    @Test
    void should_keep_each_tenant_its_own_entries_unless_the_group_shares_them() throws Exception {
        ask("tok-team-a", "cached", "private question", ",\"temperature\":0");
        HttpResponse<String> otherTenant = ask("tok-team-b", "cached", "private question", ",\"temperature\":0");
        assertThat(otherTenant.headers().firstValue("X-KeyPool-Cache")).contains("miss");
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(2);

        ask("tok-team-a", "cached-shared", "common question", "");
        HttpResponse<String> shared = ask("tok-team-b", "cached-shared", "common question", "");
        assertThat(shared.headers().firstValue("X-KeyPool-Cache")).contains("hit");
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(3);
    }

    @Test
    void should_count_a_hit_against_the_tenants_rpm_but_not_its_budget() throws Exception {
        // the fake provider's answer uses 18 tokens: 0.90 USD at 50,000 USD per million
        HttpResponse<String> miss = ask("tok-metered", "cached", "metered question", ",\"temperature\":0");
        double spentAfterMiss = tenant("metered", "admin-secret").path("spentTodayUsd").asDouble();
        HttpResponse<String> hit = ask("tok-metered", "cached", "metered question", ",\"temperature\":0");

        assertThat(hit.headers().firstValue("X-KeyPool-Cache")).contains("hit");
        assertThat(spentAfterMiss).isEqualTo(0.9, offset(1e-9));
        assertThat(tenant("metered", "admin-secret").path("spentTodayUsd").asDouble()).isEqualTo(0.9, offset(1e-9));
        long remainingAfterMiss = Long.parseLong(miss.headers().firstValue("x-ratelimit-remaining-requests").orElseThrow());
        assertThat(hit.headers().firstValue("x-ratelimit-remaining-requests"))
                .contains(String.valueOf(remainingAfterMiss - 1));
    }
}
