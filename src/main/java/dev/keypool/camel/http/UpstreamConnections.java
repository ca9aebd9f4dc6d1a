package dev.keypool.camel.http;

import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;

/**
 * The provider connections of camel-http ({@code camel.component.http.client-connection-manager}): one per LLM
 * call in flight, so their per-connection memory is multiplied by keypool.max-in-flight.
 *
 * <p>HttpClient allocates three buffers of the configured size per connection (input, output, and the input's line
 * buffer): 8 KiB each by default, 240 MB of heap at 10,000 calls in flight, the largest single item of a request's
 * footprint. At 512 B they are 15 MB: a request head and body go out in more writes (a body larger than the buffer
 * is written straight to the socket anyway), an answer's head and body come in in more reads, and a longer line
 * grows the line buffer as it needs (bench/README.md, inflight10k). The pool is LAX (a lock per
 * route instead of one for the whole pool): 10,000 calls lease and release connections at the same moment.
 */
public final class UpstreamConnections {

    static final int BUFFER_BYTES = 512;

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
