package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * keypool.metrics.token: /observe/metrics answers only the scraper that sends the token, while the health paths a
 * load balancer calls stay open.
 */
class MetricsTokenTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.metrics.token", "metrics-secret");
        return p;
    }

    @Test
    void should_answer_metrics_only_with_the_token_and_health_without() throws Exception {
        HttpResponse<String> none = get("/observe/metrics");
        HttpResponse<String> wrong = getWithToken("/observe/metrics", "metrics-secreT");
        HttpResponse<String> right = getWithToken("/observe/metrics", "metrics-secret");

        for (HttpResponse<String> refused : new HttpResponse[] {none, wrong}) {
            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.body()).contains("\"code\":\"invalid_metrics_token\"").doesNotContain("keypool_")
                    .doesNotContain("metrics-secret");
        }
        assertThat(right.statusCode()).isEqualTo(200);
        assertThat(right.body()).contains("keypool_breaker_state");
        assertThat(get("/observe/health/live").statusCode()).isEqualTo(200);
        assertThat(get("/observe/health/ready").statusCode()).isEqualTo(200);
        assertThat(logs.all()).doesNotContain("metrics-secret");
    }
}
