package dev.keypool.camel;

import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;

/**
 * The provider connections of camel-http ({@code camel.component.http.client-connection-manager}): one per LLM
 * call in flight, so their per-connection memory is multiplied by keypool.max-in-flight.
 *
 * <p>HttpClient allocates an 8 KiB input and an 8 KiB output buffer per connection: 160 MB of heap at 10,000
 * calls in flight, the largest single item of a request's footprint. A request body and an answer's head fit in
 * 2 KiB; a longer answer or stream is read in more, smaller reads. The pool is LAX (a lock per route instead of one
 * for the whole pool): 10,000 calls lease and release connections at the same moment.
 */
public final class UpstreamConnections {

    static final int BUFFER_BYTES = 2048;

    private UpstreamConnections() {
    }

    public static PoolingHttpClientConnectionManager pool(int maxPerRoute) {
        return PoolingHttpClientConnectionManagerBuilder.create()
                .setConnectionFactory(ManagedHttpClientConnectionFactory.builder()
                        .http1Config(Http1Config.custom().setBufferSize(BUFFER_BYTES).build())
                        .build())
                .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.LAX)
                .setMaxConnPerRoute(maxPerRoute)
                .build();
    }
}
