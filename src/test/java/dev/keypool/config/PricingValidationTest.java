package dev.keypool.config;

import dev.keypool.quota.ModelPrice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

/** A channel's {@code pricing}: USD per 1M prompt (input) and completion (output) tokens, per upstream model name. */
class PricingValidationTest {

    @Test
    void should_bind_prices_per_upstream_model() {
        GatewayConfig config = parse(channelWith("""
                pricing:
                  glm-4-flash: {input: 0.10, output: 0.10}
                  glm-4: {input: 5, output: "${PRICE:-15}"}"""));

        assertThat(config.channels().get(0).pricing())
                .containsEntry("glm-4-flash", new ModelPrice(0.10, 0.10))
                .containsEntry("glm-4", new ModelPrice(5, 15));
    }

    @Test
    void should_bind_cache_read_and_write_prices_when_given() {
        GatewayConfig config = parse(channelWith("""
                pricing:
                  claude-sonnet: {input: 3, output: 15, cacheRead: 0.30, cacheWrite: 3.75}
                  gpt-4o: {input: 2.5, output: 10, cacheRead: 1.25}"""));

        assertThat(config.channels().get(0).pricing())
                .containsEntry("claude-sonnet", new ModelPrice(3, 15, 0.30, 3.75))
                .containsEntry("gpt-4o", new ModelPrice(2.5, 10, 1.25, null));
    }

    @Test
    void should_have_no_prices_by_default() {
        assertThat(parse(channelWith("")).channels().get(0).pricing()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "pricing: [glm-4]                                  | channels[0].pricing: must be a mapping",
            "pricing: {glm-4: 0.1}                             | channels[0].pricing.glm-4: must be a mapping",
            "pricing: {glm-4: {input: 0.1}}                    | channels[0].pricing.glm-4.output: is required (USD per 1M tokens)",
            "pricing: {glm-4: {input: -1, output: 1}}          | channels[0].pricing.glm-4.input: must be >= 0",
            "pricing: {glm-4: {input: cheap, output: 1}}       | channels[0].pricing.glm-4.input: must be a number",
            "pricing: {glm-4: {input: 1, output: 1, cache: 1}} | channels[0].pricing.glm-4.cache: unknown field",
            "pricing: {glm-4: {input: 1, output: 1, cacheRead: -1}}    | channels[0].pricing.glm-4.cacheRead: must be >= 0",
            "pricing: {glm-4: {input: 1, output: 1, cacheWrite: lots}} | channels[0].pricing.glm-4.cacheWrite: must be a number"})
    void should_report_a_bad_price_with_its_path(String field, String problem) {
        assertThat(problemsOf(channelWith(field))).containsExactly(problem);
    }
}
