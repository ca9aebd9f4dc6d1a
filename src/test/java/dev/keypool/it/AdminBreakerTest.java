package dev.keypool.it;

import java.net.http.HttpResponse;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.BreakerState;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * POST /admin/channels/{name}/breaker forces a channel's breaker OPEN, HALF_OPEN or CLOSED, logged.
 * One gateway for the class: the forced states end CLOSED, and the other test refuses changes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminBreakerTest extends GatewayTestSupport {

    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                    fallback: [beta]
                    breaker:
                      halfOpenRequests: 2
                      halfOpenSuccess: 2
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [gpt-beta]
                    keys:
                      - key: sk-beta-1
                admin:
                  token: admin-secret-token
                """;
    }

    @Test
    void should_hold_a_forced_open_channel_out_of_service_until_closed() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));

        HttpResponse<String> opened = admin.post("/admin/channels/alpha/breaker", "{\"state\":\"OPEN\",\"reason\":\"provider maintenance\"}");

        assertThat(opened.statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(opened.body()).path("state").asText()).isEqualTo("OPEN");
        assertThat(logs.messages(Level.WARN)).contains("Channel [alpha] forced OPEN by operator: provider maintenance");
        HttpResponse<String> served = chat("gpt-test");
        assertThat(served.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(upstream.hits("sk-alpha-1")).isZero();
        // a forced OPEN does not recover by itself
        clock.advance(java.time.Duration.ofHours(1));
        assertThat(channel("alpha").breaker().state()).isEqualTo(BreakerState.OPEN);

        HttpResponse<String> halfOpen = admin.post("/admin/channels/alpha/breaker", "{\"state\":\"half_open\"}");
        assertThat(mapper.readTree(halfOpen.body()).path("state").asText()).isEqualTo("HALF_OPEN");
        assertThat(logs.messages(Level.INFO)).contains("Channel [alpha] forced HALF_OPEN by operator (needs 2/2)");
        chat("gpt-test");
        chat("gpt-test");
        assertThat(channel("alpha").breaker().state()).as("two probes passed").isEqualTo(BreakerState.CLOSED);

        admin.post("/admin/channels/alpha/breaker", "{\"state\":\"OPEN\"}");
        HttpResponse<String> closed = admin.post("/admin/channels/alpha/breaker", "{\"state\":\"CLOSED\"}");
        assertThat(mapper.readTree(closed.body()).path("state").asText()).isEqualTo("CLOSED");
        assertThat(logs.messages(Level.INFO)).contains("Channel [alpha] forced CLOSED by operator");
        assertThat(chat("gpt-test").headers().firstValue("X-KeyPool-Channel")).contains("alpha");
    }

    @Test
    void should_refuse_an_unknown_state_or_channel() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));

        HttpResponse<String> bad = admin.post("/admin/channels/alpha/breaker", "{\"state\":\"AJAR\"}");
        HttpResponse<String> unknown = admin.post("/admin/channels/gamma/breaker", "{\"state\":\"OPEN\"}");

        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("\"code\":\"invalid_state\"");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("\"code\":\"channel_not_found\"");
        assertThat(channel("alpha").breaker().state()).isEqualTo(BreakerState.CLOSED);
    }
}
