package dev.keypool.it;

import java.net.http.HttpResponse;

import dev.keypool.breaker.BreakerState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The breaker is bound by KeyPool, not made by the route: removing and re-creating the channel route keeps its state. */
class BreakerSurvivesReloadTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [m]
                    fallback: [backup]
                    keys:
                      - key: sk-main-1
                  - name: backup
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-backup-1
                """;
    }

    @Test
    void should_keep_an_open_breaker_open_across_a_reload_of_the_channel_route() throws Exception {
        channel("main").breaker().forceOpen("before reload");
        CircuitBreaker bound = context.getRegistry().lookupByNameAndType("breaker-main", CircuitBreaker.class);

        context.getRouteController().stopRoute("channel-main");
        context.removeRoute("channel-main");
        TemplatedRouteBuilder.builder(context, "keypool-channel")
                .routeId("channel-main").prefixId("main-").parameter("channel", "main").add();

        assertThat(context.getRoute("channel-main")).isNotNull();
        assertThat(context.getRegistry().lookupByNameAndType("breaker-main", CircuitBreaker.class)).isSameAs(bound);
        assertThat(bound.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(channel("main").breaker().state()).isEqualTo(BreakerState.OPEN);
        // still OPEN for the traffic: the walk skips it and no call reaches its upstream
        HttpResponse<String> r = chat("main/m");
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(upstream.hits("sk-main-1")).isZero();

        channel("main").breaker().forceClosed();
        assertThat(chat("m").headers().firstValue("X-KeyPool-Channel")).contains("main");
    }
}
