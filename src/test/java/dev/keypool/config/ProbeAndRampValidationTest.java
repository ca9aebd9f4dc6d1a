package dev.keypool.config;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.keyWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code probe} and {@code warmup} per channel, {@code rollout} and {@code retiring} per key (design §8). */
class ProbeAndRampValidationTest {

    @Test
    void should_have_no_probes_and_no_warmup_by_default() {
        ChannelConfig channel = parse(channelWith("")).channels().get(0);

        assertThat(channel.probe()).isNull();
        assertThat(channel.warmup()).isZero();
        assertThat(channel.keys().get(0).rollout()).isNull();
        assertThat(channel.keys().get(0).retiring()).isFalse();
    }

    @Test
    void should_bind_a_whole_probe_block_and_the_ramp_fields() {
        ChannelConfig channel = parse(channelWith("""
                probe:
                  interval: 30s
                  disabledInterval: 5m
                  request: chat
                  model: glm-4-flash
                  timeout: 3s
                warmup: 3m
                """)).channels().get(0);

        assertThat(channel.probe()).isEqualTo(new ProbeConfig(Duration.ofSeconds(30), Duration.ofMinutes(5),
                ProbeConfig.Request.CHAT, "glm-4-flash", Duration.ofSeconds(3)));
        assertThat(channel.warmup()).isEqualTo(Duration.ofMinutes(3));
        KeyConfig key = parse(keyWith("key: sk-one\nrollout: 24h\nretiring: true")).channels().get(0).keys().get(0);
        assertThat(key.rollout()).isEqualTo(Duration.ofHours(24));
        assertThat(key.retiring()).isTrue();
    }

    @Test
    void should_default_every_probe_field_and_take_the_first_model_for_chat() {
        ChannelConfig channel = parse(channelWith("probe: {request: chat}")).channels().get(0);

        assertThat(channel.probe()).isEqualTo(new ProbeConfig(Duration.ofSeconds(60), Duration.ofMinutes(10),
                ProbeConfig.Request.CHAT, "glm-4", Duration.ofSeconds(10)));
    }

    @Test
    void should_allow_zero_intervals_to_switch_a_kind_of_probe_off() {
        ProbeConfig probe = parse(channelWith("probe: {interval: 0, disabledInterval: 0}")).channels().get(0).probe();

        assertThat(probe.interval()).isZero();
        assertThat(probe.disabledInterval()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "probe: {request: ping}      | channels[0].probe.request: unknown probe request 'ping' (use models, chat)",
            "probe: {interval: soon}     | channels[0].probe.interval: invalid duration 'soon' (use e.g. 500ms, 30s, 5m)",
            "probe: {timeout: 0}         | channels[0].probe.timeout: must be > 0",
            "probe: {every: 5s}          | channels[0].probe.every: unknown field",
            "probe: 60s                  | channels[0].probe: must be a mapping",
            "warmup: later               | channels[0].warmup: invalid duration 'later' (use e.g. 500ms, 30s, 5m)",
    })
    void should_report_a_bad_probe_or_warmup(String field, String problem) {
        assertThat(problemsOf(channelWith(field))).containsExactly(problem);
    }

    @Test
    void should_require_a_model_for_a_chat_probe_of_an_any_model_channel() {
        String yaml = channelWith("probe: {request: chat}").replace("models: [glm-4]", "models: [\"*\"]");

        assertThat(problemsOf(yaml)).containsExactly(
                "channels[0].probe.model: is required for request: chat when the channel lists no model but \"*\"");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "rollout: 0          | channels[0].keys[0].rollout: must be > 0",
            "rollout: tomorrow   | channels[0].keys[0].rollout: invalid duration 'tomorrow' (use e.g. 500ms, 30s, 5m)",
            "retiring: maybe     | channels[0].keys[0].retiring: must be true or false",
    })
    void should_report_a_bad_rollout_or_retiring(String field, String problem) {
        assertThat(problemsOf(keyWith("key: sk-one\n" + field))).containsExactly(problem);
    }
}
