package dev.keypool.quota;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TokenEstimatorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final TokenEstimator estimator = new TokenEstimator();

    @Test
    void should_count_an_anthropic_system_prompt_and_reserve_its_max_tokens() throws Exception {
        String system = "You are a careful assistant who answers in exactly three short sentences every time.";
        JsonNode withSystem = JSON.readTree("{\"model\":\"claude-test\",\"max_tokens\":300,\"system\":\"" + system + "\","
                + "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]}");
        JsonNode without = JSON.readTree("{\"model\":\"claude-test\",\"max_tokens\":300,"
                + "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]}");

        TokenEstimate estimate = estimator.estimate("claude-test", withSystem, true);

        assertThat(estimate.prompt() - estimator.estimate("claude-test", without, true).prompt()).isGreaterThanOrEqualTo(15);
        assertThat(estimate.answer()).isEqualTo(300);
        assertThat(estimator.estimate("claude-test", without, false).answer()).isZero();
    }

    @Test
    void should_reserve_a_quarter_of_the_prompt_and_at_least_256_without_a_max() throws Exception {
        JsonNode small = JSON.readTree("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        JsonNode large = JSON.readTree("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\""
                + "lorem ipsum ".repeat(2000) + "\"}]}");

        assertThat(estimator.estimate("gpt-4o", small, true).answer()).isEqualTo(256);
        TokenEstimate big = estimator.estimate("gpt-4o", large, true);
        assertThat(big.prompt()).isGreaterThan(2000);
        assertThat(big.answer()).isEqualTo(big.prompt() / 4);
    }

    @Test
    void should_count_the_tokens_of_an_answer_text() {
        assertThat(estimator.count("gpt-4o", "")).isZero();
        assertThat(estimator.count("gpt-4o", "Hello, world! How are you today?")).isBetween(6L, 12L);
    }
}
