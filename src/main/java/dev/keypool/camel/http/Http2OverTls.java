package dev.keypool.camel.http;

import java.util.List;

import io.vertx.core.http.HttpVersion;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP/2 for the clients that ask for it on a TLS listener. Camel's settings make platform-http's server speak TLS
 * ({@code camel.ssl.*} with {@code camel.server.useGlobalSslContextParameters}) but have none for ALPN, without which
 * Vert.x offers HTTP/1.1 alone over TLS: every platform-http server that listens with TLS gets ALPN here, offering
 * {@code h2} then {@code http/1.1}, so that a client that asks for HTTP/2 gets it and any other stays on HTTP/1.1. A
 * cleartext server is left as it is.
 */
public final class Http2OverTls {

    private static final Logger LOG = LoggerFactory.getLogger(Http2OverTls.class);

    private Http2OverTls() {
    }

    /** On every platform-http server started from now on. */
    public static void install(CamelContext camel) {
        BeforeListen.install(camel, "HTTP/2 over TLS", (server, http, options) -> {
            if (!options.isSsl()) {
                return;
            }
            options.setUseAlpn(true).setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1));
            LOG.info("The HTTP server speaks TLS only: HTTP/2 to clients that ask for it (ALPN h2), HTTP/1.1 to the others");
        });
    }
}
