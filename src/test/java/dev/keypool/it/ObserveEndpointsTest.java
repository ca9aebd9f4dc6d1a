package dev.keypool.it;

import java.net.http.HttpResponse;

import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/** /observe/health and /observe/metrics answer on the gateway's own port. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
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

    @Test
    void should_expose_the_direct_memory_netty_holds_for_the_sockets() throws Exception {
        chat("any");

        String metrics = get("/observe/metrics").body();

        assertThat(metrics).containsPattern("(?m)^netty_allocator_memory_used\\{[^}]*memory_type=\"direct\"[^}]*} [1-9]")
                .contains("netty_allocator_pooled_chunk_size{");
    }

    @Test
    void should_not_time_the_internal_hops_of_every_request() throws Exception {
        chat("any");

        String metrics = get("/observe/metrics").body();

        // one timer per entry route and per channel; none for the routes every request crosses inside
        assertThat(metrics).contains("camel_route_policy_seconds_count{")
                .doesNotContain("routeId=\"gateway-core\"")
                .doesNotContain("routeId=\"chat-core\"")
                .doesNotContain("routeId=\"upstream-call\"")
                .doesNotContain("routeId=\"upstream-attempt\"")
                .doesNotContain("kind=\"CamelContext\"");
    }

    @Test
    void should_time_the_routes_with_keypools_own_policy_not_camel_micrometers() {
        // camel-micrometer's policy formats a property name three times per exchange and timed route
        assertThat(context.getRoute("chat-completions").getRoutePolicyList()).isNotEmpty()
                .noneMatch(MicrometerRoutePolicy.class::isInstance);
    }
}
