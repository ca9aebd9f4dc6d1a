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
 * A Kamelet with tenant= pins its requests to that tenant as the keypool endpoint does: a KeyPoolTenant header chooses
 * another tenant only where the Kamelet is used with allowTenantHeader=true. The tests share one host: no tenant has a
 * limit, and the provider counts each test's calls from zero.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyPoolKameletPinnedTenantTest {

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
    void should_keep_the_kamelets_tenant_whatever_the_header_says() throws Exception {
        Exchange pinned = ask("direct:pinned", "team-a");

        assertThat(pinned.getException()).isNull();
        // team-b's request: the shared key, not team-a's own
        assertThat(upstream.hits("sk-team-a")).isZero();
        assertThat(upstream.hits("sk-shared")).isEqualTo(1);
    }

    @Test
    void should_take_the_header_where_the_kamelet_allows_it() throws Exception {
        Exchange chosen = ask("direct:open", "team-a");
        Exchange fallback = ask("direct:open", null);
        Exchange embedded = ask("direct:embed-open", "team-a");

        assertThat(chosen.getException()).isNull();
        assertThat(fallback.getException()).isNull();
        assertThat(embedded.getException()).isNull();
        assertThat(upstream.hits("sk-team-a")).isEqualTo(2);
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
        Path config = Files.createTempFile("keypool-kamelet-", ".yaml");
        config.toFile().deleteOnExit();
        Files.writeString(config, """
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [m, e]
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
        host.getPropertiesComponent().addInitialProperty("keypool.config", config.toString());
        host.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:pinned").routeId("host-pinned").to("kamelet:keypool-chat-action?model=m&tenant=team-b");
                from("direct:open").routeId("host-open")
                        .to("kamelet:keypool-chat-action?model=m&tenant=team-b&allowTenantHeader=true");
                from("direct:embed-open").routeId("host-embed-open")
                        .to("kamelet:keypool-embeddings-action?model=e&tenant=team-b&allowTenantHeader=true");
            }
        });
        host.start();
    }
}
