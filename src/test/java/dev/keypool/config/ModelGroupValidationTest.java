package dev.keypool.config;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.keypool.routing.Balance;
import dev.keypool.routing.ModelGroup;
import dev.keypool.routing.Sticky;
import dev.keypool.routing.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ModelGroupValidationTest {

    private static String group(String fields) {
        return channelWith("") + "modelGroups:\n  - " + fields.stripTrailing().indent(4).stripLeading();
    }

    @Test
    void should_bind_a_group_with_its_defaults() {
        ModelGroup group = parse(group("name: chat-default\ntargets:\n  - {channel: zhipu, model: glm-4}"))
                .modelGroups().get(0);
        assertThat(group.name()).isEqualTo("chat-default");
        assertThat(group.balance()).isEqualTo(Balance.WEIGHTED);
        assertThat(group.sticky()).isEqualTo(Sticky.NONE);
        assertThat(group.maxPriceRatio()).isNull();
        assertThat(group.targets()).containsExactly(new Target("zhipu", "glm-4", 1, 1));
    }

    @Test
    void should_bind_every_field() {
        ModelGroup group = parse(group("""
                name: gpt-4.1
                balance: remaining-quota
                sticky: user
                maxPriceRatio: 1.5
                targets:
                  - {channel: zhipu, model: glm-4, weight: 0, tier: 2}""")).modelGroups().get(0);
        assertThat(group).isEqualTo(new ModelGroup("gpt-4.1", Balance.REMAINING_QUOTA, Sticky.USER, 1.5,
                java.util.List.of(new Target("zhipu", "glm-4", 0, 2))));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "targets: [{channel: zhipu, model: glm-4}] | modelGroups[0].name: is required",
            "name: g\\ntargets: [] | modelGroups[0].targets: must not be empty",
            "name: g\\ntargets: [{channel: openai, model: glm-4}] | modelGroups[0].targets[0].channel: unknown channel 'openai'",
            "name: g\\ntargets: [{channel: zhipu, model: gpt-4o}] | modelGroups[0].targets[0].model: channel 'zhipu' does not serve model 'gpt-4o' (its models: [glm-4])",
            "name: g\\ntargets: [{channel: zhipu, model: glm-4, weight: -1}] | modelGroups[0].targets[0].weight: must be >= 0",
            "name: g\\ntargets: [{channel: zhipu, model: glm-4, tier: 0}] | modelGroups[0].targets[0].tier: must be >= 1",
            "name: g\\nbalance: fastest\\ntargets: [{channel: zhipu, model: glm-4}] | modelGroups[0].balance: unknown value 'fastest' (use weighted, remaining-quota, latency, priority)",
            "name: g\\nsticky: session\\ntargets: [{channel: zhipu, model: glm-4}] | modelGroups[0].sticky: unknown value 'session' (use none, tenant, user)",
            "name: g\\nmaxPriceRatio: 0.5\\ntargets: [{channel: zhipu, model: glm-4}] | modelGroups[0].maxPriceRatio: must be >= 1 (the most a walk may pay, as a multiple of the first target's price)",
            "name: g\\ntargets: [{channel: zhipu, model: glm-4}, {channel: zhipu, model: glm-4}] | modelGroups[0].targets[1]: duplicate target 'zhipu/glm-4'",
            "name: g\\nweights: 1\\ntargets: [{channel: zhipu, model: glm-4}] | modelGroups[0].weights: unknown field"})
    void should_check_the_group_settings(String fields, String problem) {
        assertThat(problemsOf(group(fields.replace("\\n", "\n")))).containsExactly(problem);
    }
}
