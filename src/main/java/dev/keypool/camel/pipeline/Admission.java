package dev.keypool.camel.pipeline;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.camel.http.ClientHangup;
import dev.keypool.camel.http.RequestThreads;
import dev.keypool.gateway.GatewayError;
import dev.keypool.gateway.InFlightLimit;
import io.vertx.core.http.HttpServerResponse;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * First step of the API entry routes: a place under {@code keypool.max-in-flight} or 503 {@code overloaded} at once.
 * The place is given back when the exchange completes, whatever the way out (answer, error, stream end, client
 * gone). A client that hangs up also ends its request ({@link ClientHangup}): the provider call in flight is
 * cancelled, or the virtual thread (Java 21+) its stream blocks on is interrupted, which closes the provider socket
 * (JDK sockets are interruptible on virtual threads), so the key and the place are free at once instead of when the
 * provider answers.
 *
 * <p>On platform threads this step runs on the Vert.x worker platform-http gives the request and holds until it is
 * answered, so the limit is at most {@code keypool.worker-threads} ({@link RequestThreads#requestsHeld}): a request past
 * it is refused on one of {@code keypool.spare-worker-threads} in a moment, instead of waiting in Vert.x's queue for a
 * worker.
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
        if (http != null) {
            ClientHangup hangup = new ClientHangup();
            hangup.whileRunningOn(Thread.currentThread());
            exchange.setProperty(Exchanges.CLIENT_GONE, hangup);
            HttpServerResponse response = http.getResponse();
            // runs on the event loop; a stream's relay replaces it with its own once the head is out
            response.closeHandler(v -> {
                if (!done.get()) {
                    hangup.hangUp();
                }
            });
        }
    }

    public InFlightLimit limit() {
        return limit;
    }
}
