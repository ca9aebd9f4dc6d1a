package dev.keypool.camel.http;

import dev.keypool.camel.routes.ReloadGate;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.Processor;
import org.apache.camel.component.platform.http.PlatformHttpEndpoint;
import org.apache.camel.component.platform.http.spi.PlatformHttpConsumer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpConsumer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpEngine;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;

/**
 * platform-http's Vert.x engine with live route reload on: its consumers hand a request they cannot take to the
 * {@link ReloadGate} rather than answer it. {@link ReloadGate} checks a route's consumer before the request reaches
 * it, on an event loop, while the reload suspends the consumer on a thread of its own: a request that passed the gate
 * just before the suspension would get the suspended consumer's 503 with no body.
 */
public final class ReloadSafeHttpEngine extends VertxPlatformHttpEngine {

    @Override
    public PlatformHttpConsumer createConsumer(PlatformHttpEndpoint endpoint, Processor processor) {
        return new Consumer(endpoint, processor, this);
    }

    private static final class Consumer extends VertxPlatformHttpConsumer {

        Consumer(PlatformHttpEndpoint endpoint, Processor processor, ReloadSafeHttpEngine engine) {
            super(endpoint, processor, engine.getHandlers(), VertxPlatformHttpRouter.getRouterNameFromPort(engine.getServerPort()));
        }

        @Override
        protected void handleRequest(RoutingContext context) {
            // the lifecycle lock: suspend and stop cannot come between this check and the one in super
            lock.lock();
            try {
                if (isStarted()) {
                    super.handleRequest(context);
                    return;
                }
            } finally {
                lock.unlock();
            }
            if (!ReloadGate.holdBack(context)) {
                super.handleRequest(context);
            }
        }
    }
}
