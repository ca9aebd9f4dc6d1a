package dev.keypool.testing;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.camel.pipeline.Exchanges;
import io.vertx.core.Context;
import io.vertx.core.impl.ContextInternal;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSendingEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSentEvent;
import org.apache.camel.support.EventNotifierSupport;

/**
 * The threads the gateway's provider calls were sent from and answered on, by the key each was sent with (its
 * Authorization header): which thread Camel sends a call from and hears its answer on.
 */
public final class ProviderCallThreads extends EventNotifierSupport {

    /** How Vert.x names its event loops' threads: a thread name starting with it is an event loop. */
    public static final String EVENT_LOOP = "vert.x-eventloop-thread-";

    /** The key of each call in flight, by its exchange: the answer's headers are the provider's. */
    private final Map<String, String> keys = new ConcurrentHashMap<>();
    private final Map<String, List<String>> sentFrom = new ConcurrentHashMap<>();
    private final Map<String, List<String>> answeredOn = new ConcurrentHashMap<>();
    private final Map<String, List<Boolean>> onRequestLoop = new ConcurrentHashMap<>();

    private ProviderCallThreads() {
    }

    /** Watches {@code context}'s calls; before it starts: Camel emits these events only where a notifier was there then. */
    public static ProviderCallThreads watch(CamelContext context) {
        ProviderCallThreads threads = new ProviderCallThreads();
        context.getManagementStrategy().addEventNotifier(threads);
        return threads;
    }

    /** The threads the calls with this key were sent from, in order; null before the first. */
    public List<String> sentFrom(String key) {
        return sentFrom.get(key);
    }

    /** The threads the calls with this key were answered on, in order; null before the first. */
    public List<String> answeredOn(String key) {
        return answeredOn.get(key);
    }

    /**
     * For each call with this key answered so far, in order: whether its answer was heard on the event loop that read
     * its request (false for a call of no request read over HTTP); null before the first.
     */
    public List<Boolean> answeredOnRequestLoop(String key) {
        return onRequestLoop.get(key);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event instanceof ExchangeSendingEvent || event instanceof ExchangeSentEvent;
    }

    @Override
    public void notify(CamelEvent event) {
        if (event instanceof ExchangeSendingEvent sending) {
            String authorization = sending.getExchange().getMessage().getHeader("Authorization", String.class);
            if (sending.getEndpoint().getEndpointUri().startsWith("vertx-http:") && authorization != null) {
                String key = authorization.substring("Bearer ".length());
                keys.put(sending.getExchange().getExchangeId(), key);
                record(sentFrom, key);
            }
        } else if (event instanceof ExchangeSentEvent sent) {
            String key = keys.remove(sent.getExchange().getExchangeId());
            if (key != null) {
                record(answeredOn, key);
                Context loop = sent.getExchange().getProperty(Exchanges.REQUEST_EVENT_LOOP, Context.class);
                onRequestLoop.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>())
                        .add(loop != null && ((ContextInternal) loop).nettyEventLoop().inEventLoop());
            }
        }
    }

    private static void record(Map<String, List<String>> threads, String key) {
        threads.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(Thread.currentThread().getName());
    }
}
