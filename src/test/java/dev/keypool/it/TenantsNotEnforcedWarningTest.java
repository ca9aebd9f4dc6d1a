package dev.keypool.it;

import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Tenants are parsed and validated, not enforced yet: startup says so instead of looking protected. */
class TenantsNotEnforcedWarningTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-alpha-1
                tenants:
                  - name: team-a
                    token: tenant-token-a
                """;
    }

    @Test
    void should_warn_that_configured_tenants_are_not_enforced_yet() throws Exception {
        assertThat(logs.messages(Level.WARN)).contains(
                "1 tenants configured, but tenant tokens and limits are not enforced yet: "
                        + "the gateway is open to every client that can reach it");
        assertThat(logs.all()).doesNotContain("tenant-token-a");
        assertThat(chat("any").statusCode()).isEqualTo(200);
    }
}
