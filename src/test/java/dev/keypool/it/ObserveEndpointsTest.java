package dev.keypool.it;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** /observe/health and /observe/metrics answer on the gateway's own port. */
class ObserveEndpointsTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-alpha-1
                """;
    }

    @Test
    void should_report_health_up() throws Exception {
        HttpResponse<String> r = get("/observe/health");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"status\":\"UP\"");
    }

    @Test
    void should_expose_prometheus_metrics_of_the_routes() throws Exception {
        chat("any");

        HttpResponse<String> r = get("/observe/metrics");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("routeId=\"chat-completions\"").contains("routeId=\"channel-alpha\"");
    }
}
