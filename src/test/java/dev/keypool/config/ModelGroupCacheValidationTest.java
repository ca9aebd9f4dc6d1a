package dev.keypool.config;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.keypool.routing.CachePolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A model group's {@code cache:} block, bound with its defaults and checked like the rest of keypool.yaml. */
class ModelGroupCacheValidationTest {

    private static String groupWithCache(String cache) {
        return channelWith("") + "modelGroups:\n  - name: g\n    targets: [{channel: zhipu, model: glm-4}]\n    cache: "
                + cache + "\n";
    }

    @Test
    void should_bind_a_cache_with_its_defaults() {
        CachePolicy cache = parse(groupWithCache("{}")).modelGroups().get(0).cache();

        assertThat(cache).isEqualTo(new CachePolicy(Duration.ofMinutes(10), CachePolicy.When.DETERMINISTIC,
                Duration.ofHours(1), false));
    }

    @Test
    void should_bind_every_cache_field_and_no_cache_without_the_block() {
        CachePolicy cache = parse(groupWithCache("{ttl: 30s, when: always, staleFor: 0, shared: true}"))
                .modelGroups().get(0).cache();

        assertThat(cache).isEqualTo(new CachePolicy(Duration.ofSeconds(30), CachePolicy.When.ALWAYS, Duration.ZERO, true));
        assertThat(parse(channelWith("") + "modelGroups:\n  - name: g\n    targets: [{channel: zhipu, model: glm-4}]\n")
                .modelGroups().get(0).cache()).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "{ttl: 0} | modelGroups[0].cache.ttl: must be > 0",
            "{ttl: soon} | modelGroups[0].cache.ttl: PROBLEM",
            "{staleFor: -1m} | modelGroups[0].cache.staleFor: PROBLEM",
            "{when: sometimes} | modelGroups[0].cache.when: unknown value 'sometimes' (use deterministic, always)",
            "{shared: maybe} | modelGroups[0].cache.shared: PROBLEM",
            "{size: 10} | modelGroups[0].cache.size: unknown field",
            "10m | modelGroups[0].cache: must be a mapping"})
    void should_check_the_cache_settings(String cache, String problem) {
        var problems = problemsOf(groupWithCache(cache));
        assertThat(problems).hasSize(1);
        if (problem.endsWith("PROBLEM")) {
            assertThat(problems.get(0)).startsWith(problem.replace("PROBLEM", ""));
        } else {
            assertThat(problems).containsExactly(problem);
        }
    }
}
