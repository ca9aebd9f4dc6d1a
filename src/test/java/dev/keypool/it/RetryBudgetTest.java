package dev.keypool.it;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** maxRetries bounds the extra attempts inside a channel even when untried keys are left. */
class RetryBudgetTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    maxRetries: 1
                    keys:
                      - key: sk-alpha-1
                      - key: sk-alpha-2
                      - key: sk-alpha-3
                """;
    }

    @Test
    void should_stop_after_max_retries_extra_attempts() throws Exception {
        upstream.answer("sk-alpha-1", 500).answer("sk-alpha-2", 500);

        HttpResponse<String> r = chat("any-model");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("X-KeyPool-Attempts")).contains("2");
        assertThat(upstream.hits("sk-alpha-3")).isZero();
    }

    @Test
    void should_serve_within_the_budget() throws Exception {
        upstream.answer("sk-alpha-1", 429, "5", null);

        HttpResponse<String> r = chat("any-model");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Attempts")).contains("2");
    }
}
