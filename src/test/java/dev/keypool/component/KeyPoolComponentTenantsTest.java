package dev.keypool.component;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.HostContexts;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tenants through the keypool component: the host names the tenant (KeyPoolTenant), and the pipeline applies that
 * tenant's keys and limits as it does to a token over HTTP; a host that names none, or an unknown one, is refused.
 * The tests share one host: only the first spends team-a's requests, and the provider counts each test's calls from zero.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyPoolComponentTenantsTest {

    private final FakeUpstream upstream = new FakeUpstream();
    private CamelContext host;

    @BeforeEach
    void forgetPreviousTest() {
        upstream.restore();
    }

    @AfterAll
    void stop() {
        host.stop();
        upstream.close();
    }

    @Test
    void should_apply_the_named_tenants_own_keys_and_limits() throws Exception {
        Exchange first = ask("team-a");
        Exchange second = ask("team-a");
        Exchange refused = ask("team-a");
        Exchange other = ask("team-b");

        assertThat(first.getException()).isNull();
        assertThat(second.getException()).isNull();
        // team-a's own key served it; its bucket of 2 is empty now, team-b's is not
        assertThat(upstream.hits("sk-team-a")).isEqualTo(2);
        assertThat(refused.getException()).isInstanceOf(KeyPoolException.class);
        KeyPoolException limited = (KeyPoolException) refused.getException();
        assertThat(limited.getStatus()).isEqualTo(429);
        assertThat(limited.getCode()).isEqualTo("tenant_rate_limited");
        assertThat(other.getException()).isNull();
        assertThat(upstream.hits("sk-shared")).isEqualTo(1);
    }

    @Test
    void should_refuse_a_host_request_that_names_no_known_tenant() throws Exception {
        Exchange none = ask(null);
        Exchange unknown = ask("team-z");

        for (Exchange refused : new Exchange[] {none, unknown}) {
            assertThat(refused.getException()).isInstanceOf(KeyPoolException.class);
            assertThat(((KeyPoolException) refused.getException()).getStatus()).isEqualTo(401);
            assertThat(((KeyPoolException) refused.getException()).getCode()).isEqualTo("invalid_api_key");
        }
        assertThat(upstream.totalHits()).isZero();
    }

    private Exchange ask(String tenant) {
        return host.createProducerTemplate().send("direct:ask", e -> {
            e.getMessage().setBody("Say hi");
            Map<String, Object> headers = new HashMap<>();
            if (tenant != null) {
                headers.put(KeyPoolConstants.TENANT, tenant);
            }
            e.getMessage().setHeaders(headers);
        });
    }

    @BeforeAll
    void start() throws Exception {
        Path config = Files.createTempFile("keypool-host-", ".yaml");
        config.toFile().deleteOnExit();
        Files.writeString(config, """
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [m]
                    keys:
                      - key: sk-shared
                      - key: sk-team-a
                        tenant: team-a
                tenants:
                  - name: team-a
                    token: token-a
                    rpm: 60
                    burst: 2
                  - name: team-b
                    token: token-b
                queue:
                  maxWait: 0s
                """.replace("UPSTREAM", upstream.baseUrl()));
        host = HostContexts.plain();
        host.getPropertiesComponent().addInitialProperty("state.dir", Files.createTempDirectory("keypool-state-").toString());
        host.getPropertiesComponent().addInitialProperty("keypool.retry-backoff-ms", "1");
        host.getComponent("keypool", KeyPoolComponent.class).setConfig(config.toString());
        host.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:ask").routeId("host-ask").to("keypool:chat?model=m");
            }
        });
        host.start();
    }
}
