package dev.keypool.camel;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.gateway.GatewayError;
import dev.keypool.gateway.InFlightLimit;
import io.vertx.core.http.HttpServerResponse;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * First step of the API entry routes: a place under {@code keypool.max-in-flight} or 503 {@code overloaded} at once.
 * The place is given back when the exchange completes, whatever the way out (answer, error, stream end, client
 * gone). A client that hangs up also ends its request: on a virtual thread (Java 21+) its thread is interrupted,
 * which closes the provider socket it is blocked on (JDK sockets are interruptible on virtual threads), so the key
 * and the place are free at once instead of when the provider answers.
 */
public final class Admission {

    private final InFlightLimit limit;

    public Admission(InFlightLimit limit) {
        this.limit = limit;
    }

    public void admit(Exchange exchange) {
        if (!limit.tryEnter()) {
            throw GatewayError.overloaded(limit.current());
        }
        AtomicBoolean done = new AtomicBoolean();
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange completed) {
                if (done.compareAndSet(false, true)) {
                    limit.leave();
                }
            }
        });
        HttpMessage http = exchange.getIn(HttpMessage.class);
        Thread worker = Thread.currentThread();
        if (http != null && RequestThreads.isVirtual(worker)) {
            AtomicBoolean gone = new AtomicBoolean();
            exchange.setProperty(Exchanges.CLIENT_GONE, gone);
            HttpServerResponse response = http.getResponse();
            // runs on the event loop; a stream's relay replaces it with its own once the head is out
            response.closeHandler(v -> {
                if (!done.get() && gone.compareAndSet(false, true)) {
                    worker.interrupt();
                }
            });
        }
    }

    public InFlightLimit limit() {
        return limit;
    }
}
