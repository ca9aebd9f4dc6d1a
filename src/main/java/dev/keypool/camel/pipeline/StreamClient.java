package dev.keypool.camel.pipeline;

import java.util.Map;

/**
 * Where {@link StreamRelay} writes a stream's events: the HTTP client's response ({@link HttpStreamClient}), or an
 * application that runs the pipeline in its own JVM (the keypool component puts one on the exchange under
 * {@link #PROPERTY}). Called on the thread that relays the stream.
 */
public interface StreamClient {

    /** The exchange property under which a caller without HTTP hands the pipeline its stream client. */
    String PROPERTY = "kpStreamClient";

    /** Runs {@code gone} once the client goes away mid-stream (the relay then stops reading the provider). */
    void onGone(Runnable gone);

    /** The head of the answer: status 200, an event stream, and the request's answer headers (X-KeyPool-* …). */
    void open(Map<String, String> headers);

    /**
     * One whole event, as the client's format writes it ({@code data: …\n\n}); blocks while the client is not reading.
     *
     * @return false when the client is gone (nothing was written)
     */
    boolean write(byte[] event) throws InterruptedException;

    /** The stream is over (whole, or after an error event). */
    void end();
}
