package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import dev.keypool.testing.RequestLogRows;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A model group's cached answer past its ttl answers while no target can (design §16 {@code cache.staleFor}):
 * {@code X-KeyPool-Cache: stale} instead of a 503, and not once {@code staleFor} has passed too.
 */
class ResponseCacheStaleTest extends GatewayTestSupport {

    private static final String ASK = "{\"model\":\"cached\",\"temperature\":0,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"what is a circuit breaker\"}]}";

    private RequestLogRows rows() {
        return RequestLogRows.sqlite(context.getPropertiesComponent().resolveProperty("state.dir").orElseThrow());
    }

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [alpha-chat]
                    keys:
                      - key: sk-alpha-1
                modelGroups:
                  - name: cached
                    cache: {ttl: 1m, staleFor: 10m}
                    targets:
                      - {channel: alpha, model: alpha-chat}
                """;
    }

    @Test
    void should_answer_with_the_stale_entry_while_the_provider_is_down_within_stale_for() throws Exception {
        HttpResponse<String> stored = post("/v1/chat/completions", ASK);
        assertThat(stored.headers().firstValue("X-KeyPool-Cache")).contains("miss");

        clock.advance(Duration.ofSeconds(90));
        upstream.answer("sk-alpha-1", 500);
        HttpResponse<String> stale = post("/v1/chat/completions", ASK);

        assertThat(stale.statusCode()).isEqualTo(200);
        assertThat(stale.headers().firstValue("X-KeyPool-Cache")).contains("stale");
        assertThat(stale.body()).isEqualTo(stored.body());
        // past its ttl the entry answers no longer at once: the provider was asked first
        assertThat(upstream.hits("sk-alpha-1")).isGreaterThan(1);

        // the request log tells the stale answer from a provider's: no channel, no key, pool cache-stale
        String staleId = stale.headers().firstValue("X-Request-Id").orElseThrow();
        Map<String, Object> row = await().atMost(Duration.ofSeconds(15)).until(() -> rows().all().stream()
                .filter(r -> staleId.equals(r.get("request_id"))).findFirst(), Optional::isPresent).orElseThrow();
        assertThat(row).containsEntry("pool", "cache-stale").containsEntry("status", 200);
        assertThat(row.get("channel")).isNull();
        assertThat(row.get("key_fingerprint")).isNull();

        clock.advance(Duration.ofMinutes(10));
        HttpResponse<String> tooOld = post("/v1/chat/completions", ASK);
        assertThat(tooOld.statusCode()).isEqualTo(503);
        assertThat(tooOld.headers().firstValue("X-KeyPool-Cache")).isEmpty();
    }
}
