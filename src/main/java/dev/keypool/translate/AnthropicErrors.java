package dev.keypool.translate;

/** Anthropic's error {@code type} for an HTTP status, as its API answers them. */
public final class AnthropicErrors {

    private AnthropicErrors() {
    }

    /** 503 (no channel, or the gateway full) is {@code overloaded_error}, as Anthropic's own 529. */
    public static String type(int status) {
        return switch (status) {
            case 400, 405, 413, 422 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 429 -> "rate_limit_error";
            case 503, 529 -> "overloaded_error";
            default -> "api_error";
        };
    }
}
