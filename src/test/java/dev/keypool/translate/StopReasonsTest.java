package dev.keypool.translate;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Every finish_reason and stop_reason, each way. */
class StopReasonsTest {

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
            "stop, null, end_turn",
            "stop, END, stop_sequence",
            "length, null, max_tokens",
            "tool_calls, null, tool_use",
            "function_call, null, tool_use",
            "content_filter, null, refusal",
            "null, null, null"})
    void should_map_an_openai_finish_reason_to_anthropic(String finishReason, String matchedStop, String stopReason) {
        assertThat(StopReasons.stopReason(finishReason, matchedStop)).isEqualTo(stopReason);
    }

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
            "end_turn, stop",
            "stop_sequence, stop",
            "pause_turn, stop",
            "max_tokens, length",
            "model_context_window_exceeded, length",
            "tool_use, tool_calls",
            "refusal, content_filter",
            "null, null"})
    void should_map_an_anthropic_stop_reason_to_openai(String stopReason, String finishReason) {
        assertThat(StopReasons.finishReason(stopReason)).isEqualTo(finishReason);
    }
}
