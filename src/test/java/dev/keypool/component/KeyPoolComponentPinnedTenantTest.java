package dev.keypool.component;

import java.nio.file.Files;
import java.nio.file.Path;

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
 * An endpoint with tenant= pins its requests to that tenant: a KeyPoolTenant header (which may come from whatever
 * wrote the message) chooses another tenant only where the endpoint sets allowTenantHeader=true. The tests share one
 * host: no tenant has a limit, and the provider counts each test's calls from zero.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyPoolComponentPinnedTenantTest {

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
    void should_keep_the_endpoints_tenant_whatever_the_header_says() throws Exception {
        Exchange pinned = ask("direct:pinned", "team-a");

        assertThat(pinned.getException()).isNull();
        // team-b's request: the shared key, not team-a's own
        assertThat(upstream.hits("sk-team-a")).isZero();
        assertThat(upstream.hits("sk-shared")).isEqualTo(1);
    }

    @Test
    void should_take_the_header_where_the_endpoint_allows_it() throws Exception {
        Exchange chosen = ask("direct:open", "team-a");
        Exchange fallback = ask("direct:open", null);

        assertThat(chosen.getException()).isNull();
        assertThat(fallback.getException()).isNull();
        assertThat(upstream.hits("sk-team-a")).isEqualTo(1);
        assertThat(upstream.hits("sk-shared")).isEqualTo(1);
    }

    private Exchange ask(String route, String tenantHeader) {
        return host.createProducerTemplate().send(route, e -> {
            e.getMessage().setBody("Say hi");
            if (tenantHeader != null) {
                e.getMessage().setHeader(KeyPoolConstants.TENANT, tenantHeader);
            }
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
                    borrow: false
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
                from("direct:pinned").routeId("host-pinned").to("keypool:chat?model=m&tenant=team-b");
                from("direct:open").routeId("host-open").to("keypool:chat?model=m&tenant=team-b&allowTenantHeader=true");
            }
        });
        host.start();
    }
}
