package dev.keypool.camel.http;

import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

import dev.keypool.camel.pipeline.Exchanges;
import io.vertx.core.Context;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;

/**
 * A route step ahead of a step that may wait (the walk's wait for quota room, an injected fault's delay or the retry
 * backoff after it): a request whose route runs on a Vert.x event loop ({@link GatewayHttpEngine}) goes on from here
 * on a request thread of {@code requests}, so that the wait holds no other connection of that loop. Anywhere else, and
 * when {@code ahead} says the step will not wait, it does nothing.
 */
public final class LeaveEventLoop extends AsyncProcessorSupport {

    private final Executor requests;
    private final BooleanSupplier ahead;

    /**
     * @param ahead whether the step ahead may wait now (asked only on an event loop)
     */
    public LeaveEventLoop(Executor requests, BooleanSupplier ahead) {
        this.requests = requests;
        this.ahead = ahead;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        if (!Context.isOnEventLoopThread() || !ahead.getAsBoolean()) {
            callback.done(true);
            return true;
        }
        requests.execute(() -> {
            ClientHangup hangup = exchange.getProperty(Exchanges.CLIENT_GONE, ClientHangup.class);
            if (hangup != null) {
                // a hang-up interrupts the wait from now
                hangup.whileRunningOn(Thread.currentThread());
            }
            callback.done(false);
        });
        return false;
    }
}
