package dev.keypool.component;

import java.util.Map;

/**
 * Receives a streamed answer of {@code keypool:chat} in this JVM, event by event as the provider sends them, on the
 * thread that sent the request: put it in the {@link KeyPoolConstants#STREAM_LISTENER} header of a request with
 * {@code "stream": true}. The events are what the HTTP API would send ({@code data: {chat.completion.chunk}\n\n} …
 * {@code data: [DONE]\n\n}, translated from the provider's format where the channel speaks the other one). The send
 * returns once the stream is over; a failure before the first event is a {@link KeyPoolException} as for any request
 * (after other keys and channels were tried), one after it an error event ({@code data: {"error": …}}) and the end.
 */
public interface KeyPoolStreamListener {

    /**
     * The stream is about to start. {@code headers}: who serves it ({@link KeyPoolConstants#CHANNEL},
     * {@link KeyPoolConstants#KEY}, {@link KeyPoolConstants#ATTEMPTS}, {@link KeyPoolConstants#FALLBACK_LEVEL});
     * {@code cancel}: stops the stream (the provider's connection is closed, the key freed), from any thread.
     */
    default void onOpen(Map<String, String> headers, Runnable cancel) {
    }

    /** One whole Server-Sent Event. An exception thrown here cancels the stream. */
    void onEvent(String event);
}
