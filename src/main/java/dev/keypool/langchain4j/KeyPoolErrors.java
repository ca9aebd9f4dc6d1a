package dev.keypool.langchain4j;

import dev.keypool.component.KeyPoolException;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.LangChain4jException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.TimeoutException;

/**
 * The gateway's errors as LangChain4j's exceptions, so that code written for any LangChain4j model tells them apart
 * (and LangChain4j's own retry treats a 429 or 5xx as retriable, a 400 as not); the {@link KeyPoolException} stays
 * the cause, with the status, KeyPool's code ({@code quota_exhausted}, {@code no_channel_available} …) and Retry-After.
 */
final class KeyPoolErrors {

    private KeyPoolErrors() {
    }

    static RuntimeException toLangChain4j(Throwable failure) {
        if (!(failure instanceof KeyPoolException e)) {
            return failure instanceof LangChain4jException known ? known : new LangChain4jException(failure);
        }
        String message = e.getStatus() + (e.getCode() == null ? "" : " " + e.getCode()) + ": " + e.getMessage()
                + (e.getRetryAfterSeconds() == null ? "" : " (retry after " + e.getRetryAfterSeconds() + " s)");
        return switch (e.getStatus()) {
            case 400, 413, 422 -> new InvalidRequestException(message, e);
            case 401, 403 -> new AuthenticationException(message, e);
            case 404 -> new ModelNotFoundException(message, e);
            case 408 -> new TimeoutException(message, e);
            case 429 -> new RateLimitException(message, e);
            default -> e.getStatus() >= 500 ? new InternalServerException(message, e) : httpException(e, message);
        };
    }

    private static HttpException httpException(KeyPoolException e, String message) {
        HttpException http = new HttpException(e.getStatus(), message);
        http.initCause(e);
        return http;
    }
}
