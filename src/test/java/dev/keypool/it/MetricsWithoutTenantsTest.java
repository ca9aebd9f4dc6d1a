package dev.keypool.it;

import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** keypool.metrics.tenant-labels=false: the request, token and cost series carry no tenant label. */
class MetricsWithoutTenantsTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    pricing:
                      gpt-test: {input: 1.0, output: 1.0}
                    keys:
                      - key: sk-alpha-1
                tenants:
                  - name: team-secret-name
                    token: token-a
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.metrics.tenant-labels", "false");
        return p;
    }

    @Test
    void should_leave_the_tenant_label_out() throws Exception {
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);

        String metrics = get("/observe/metrics").body();

        assertThat(metrics).contains("keypool_requests_total{channel=\"alpha\",model=\"gpt-test\",outcome=\"success\"} 1.0")
                .contains("keypool_tokens_total{channel=\"alpha\",kind=\"prompt\"}")
                .contains("keypool_cost_usd_total{channel=\"alpha\"}")
                .doesNotContain("tenant=").doesNotContain("team-secret-name");
    }
}
