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

        long estimate = estimator.estimate("claude-test", withSystem, true);

        assertThat(estimate - estimator.estimate("claude-test", without, true)).isGreaterThanOrEqualTo(15);
        assertThat(estimator.estimate("claude-test", without, true) - estimator.estimate("claude-test", without, false))
                .isEqualTo(300);
    }
}
