package dev.keypool.translate;

/**
 * Why an answer ended, between OpenAI's {@code finish_reason} and Anthropic's {@code stop_reason}. OpenAI says
 * {@code stop} both for a natural end and for a stop sequence; some OpenAI-compatible servers (vLLM) name the matched
 * sequence in the choice's {@code stop_reason}, which then makes it {@code stop_sequence}.
 */
public final class StopReasons {

    private StopReasons() {
    }

    /** Anthropic's {@code stop_reason} for an OpenAI {@code finish_reason} (null stays null). */
    public static String stopReason(String finishReason, String matchedStopSequence) {
        if (finishReason == null) {
            return null;
        }
        return switch (finishReason) {
            case "stop" -> matchedStopSequence != null ? "stop_sequence" : "end_turn";
            case "length" -> "max_tokens";
            case "tool_calls", "function_call" -> "tool_use";
            case "content_filter" -> "refusal";
            default -> "end_turn";
        };
    }

    /** OpenAI's {@code finish_reason} for an Anthropic {@code stop_reason} (null stays null). */
    public static String finishReason(String stopReason) {
        if (stopReason == null) {
            return null;
        }
        return switch (stopReason) {
            case "max_tokens", "model_context_window_exceeded" -> "length";
            case "tool_use" -> "tool_calls";
            case "refusal" -> "content_filter";
            default -> "stop";   // end_turn, stop_sequence, pause_turn
        };
    }
}
