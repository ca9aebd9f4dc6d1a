package dev.keypool.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** /admin/status shows what the answered calls cost: usage × the channel's pricing of the upstream model. */
class CostStatusTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: zhipu
                    baseUrl: UPSTREAM
                    models: [glm-4-flash, unpriced-model]
                    modelMap: {gpt-4o-mini: glm-4-flash}
                    pricing:
                      glm-4-flash: {input: 2.0, output: 4.0}
                    keys:
                      - key: sk-zhipu-1
                admin:
                  token: admin-secret
                """;
    }

    @Test
    void should_price_usage_by_upstream_model_per_key_and_channel() throws Exception {
        // the fake provider reports 11 prompt and 7 completion tokens: (11 × 2 + 7 × 4) / 1M = 0.00005 USD a call
        assertThat(chat("gpt-4o-mini").statusCode()).isEqualTo(200);
        assertThat(chat("glm-4-flash").statusCode()).isEqualTo(200);
        assertThat(chat("unpriced-model").statusCode()).isEqualTo(200);

        JsonNode channel = JSON.readTree(getWithToken("/admin/status", "admin-secret").body()).path("channels").get(0);

        assertThat(channel.path("costUsd").asDouble()).isCloseTo(0.0001, within(1e-12));
        assertThat(channel.path("keys").get(0).path("costUsd").asDouble()).isCloseTo(0.0001, within(1e-12));
        JsonNode byModel = channel.path("usageByModel");
        assertThat(byModel).hasSize(2);
        assertThat(byModel.get(0).path("model").asText()).isEqualTo("glm-4-flash");
        assertThat(byModel.get(0).path("promptTokens").asLong()).isEqualTo(22);
        assertThat(byModel.get(0).path("completionTokens").asLong()).isEqualTo(14);
        assertThat(byModel.get(0).path("costUsd").asDouble()).isCloseTo(0.0001, within(1e-12));
        // no price: tokens counted, no cost
        assertThat(byModel.get(1).path("model").asText()).isEqualTo("unpriced-model");
        assertThat(byModel.get(1).path("promptTokens").asLong()).isEqualTo(11);
        assertThat(byModel.get(1).path("costUsd").asDouble()).isZero();
    }
}
