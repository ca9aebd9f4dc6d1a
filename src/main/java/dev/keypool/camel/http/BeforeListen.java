package dev.keypool.camel.http;

import java.lang.reflect.Field;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;

import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.impl.TCPServerBase;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What KeyPool sets on platform-http's Vert.x servers that Camel has no setting for, set on each server just before it
 * listens. platform-http builds the server's {@link HttpServerOptions} and makes it listen in one step, and Vert.x
 * reads the copy of the options the server keeps only when it listens: a hook runs on the thread platform-http starts
 * to listen on, which Camel creates through its {@link org.apache.camel.spi.ExecutorServiceManager} and names the
 * server as the owner of. The server and its options are there by then, and nothing listens yet.
 */
final class BeforeListen {

    private static final Logger LOG = LoggerFactory.getLogger(BeforeListen.class);

    /** A change to one server: its Vert.x server, and the options it is about to listen with. */
    @FunctionalInterface
    interface Hook {
        void apply(VertxPlatformHttpServer server, HttpServer http, HttpServerOptions options) throws ReflectiveOperationException;
    }

    private BeforeListen() {
    }

    /** Runs {@code hook} on every platform-http server started from now on; {@code what} names it in a warning. */
    static void install(CamelContext camel, String what, Hook hook) {
        camel.getExecutorServiceManager().addThreadFactoryListener((owner, factory) -> owner instanceof VertxPlatformHttpServer server
                ? firstTaskApplies(factory, server, what, hook) : factory);
    }

    private static ThreadFactory firstTaskApplies(ThreadFactory factory, VertxPlatformHttpServer server, String what, Hook hook) {
        AtomicBoolean first = new AtomicBoolean(true);
        // the first task of this thread makes the server listen
        return task -> factory.newThread(() -> {
            if (first.compareAndSet(true, false)) {
                apply(server, what, hook);
            }
            task.run();
        });
    }

    private static void apply(VertxPlatformHttpServer server, String what, Hook hook) {
        HttpServer http = server.getServer();
        if (http == null) {
            LOG.warn("{} is not applied: platform-http's server was not there before it listened", what);
            return;
        }
        try {
            hook.apply(server, http, optionsOf(http));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("{} is not applied: platform-http's server is not as expected ({})", what, e.toString());
        }
    }

    /** The options the server listens with: platform-http makes them itself and has no setting for these. */
    private static HttpServerOptions optionsOf(HttpServer http) throws ReflectiveOperationException {
        return privateField(http.getClass(), "options", http);
    }

    /**
     * The second copy of a server's options, which its TCP layer keeps and reads when it listens: the TLS handshake's
     * bound is taken from this one, not from the copy a {@link Hook} is given.
     */
    static NetServerOptions tcpOptionsOf(HttpServer http) {
        try {
            return privateField(TCPServerBase.class, "options", http);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A field {@code owner} declares, of {@code of}: what platform-http and Vert.x keep to themselves. */
    @SuppressWarnings("unchecked")
    static <T> T privateField(Class<?> owner, String name, Object of) throws ReflectiveOperationException {
        Field field = owner.getDeclaredField(name);
        field.setAccessible(true);
        return (T) field.get(of);
    }
}
