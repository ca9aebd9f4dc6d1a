package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model group's cost guard (design §16): when its cheap target fails, the walk does not go on to a target costing
 * more than maxPriceRatio times as much, and the client gets 503 no_affordable_fallback; a fallback within the ratio
 * serves, and the switch of model is logged.
 */
class ModelGroupCostGuardTest extends ModelGroupTestSupport {

    @Override
    protected List<String> channels() {
        return List.of("cheap", "fair", "dear");
    }

    @Override
    protected String groups() {
        return """
                modelGroups:
                  - name: guarded
                    balance: priority
                    maxPriceRatio: 2
                    targets:
                      - {channel: cheap, model: cheap-chat}
                      - {channel: dear, model: dear-chat}
                  - name: guarded-with-room
                    balance: priority
                    maxPriceRatio: 2
                    targets:
                      - {channel: cheap, model: cheap-chat}
                      - {channel: dear, model: dear-chat}
                      - {channel: fair, model: fair-chat}
                """;
    }

    /** Each channel's price per million tokens, input and output. */
    @Override
    protected String channelYaml(String name) {
        String price = switch (name) {
            case "cheap" -> "{input: 0.5, output: 1.5}";
            case "fair" -> "{input: 1, output: 3}";
            default -> "{input: 5, output: 15}";
        };
        return super.channelYaml(name) + "    pricing:\n      " + name + "-chat: " + price + "\n";
    }

    @Test
    void should_answer_503_no_affordable_fallback_instead_of_walking_to_a_dearer_target() throws Exception {
        upstream.answer("sk-cheap-1", 500);

        HttpResponse<String> response = chat("guarded");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(new ObjectMapper().readTree(response.body()).path("error").path("code").asText())
                .isEqualTo("no_affordable_fallback");
        assertThat(response.body()).contains("dear/dear-chat");
        assertThat(upstream.hits("sk-cheap-1")).isPositive();
        assertThat(upstream.hits("sk-dear-1")).isZero();
    }

    @Test
    void should_walk_on_to_a_target_within_the_ratio_and_log_the_switch_of_model() throws Exception {
        upstream.answer("sk-cheap-1", 500);

        HttpResponse<String> response = chat("guarded-with-room");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-KeyPool-Model")).contains("fair-chat");
        assertThat(upstream.hits("sk-dear-1")).isZero();
        assertThat(logs.messages(Level.INFO)).anyMatch(line -> line.contains("from model cheap-chat (cheap) to model fair-chat (fair)"));

        chat("guarded-with-room");
        assertThat(logs.messages(Level.INFO)).filteredOn(line -> line.contains("to model fair-chat")).hasSize(1);
    }
}
