package dev.keypool.component;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.camel.pipeline.StreamClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The pipeline's stream relay writing to a {@link KeyPoolStreamListener} of the host application, no HTTP between. */
final class ListenerStreamClient implements StreamClient {

    private static final Logger LOG = LoggerFactory.getLogger(ListenerStreamClient.class);

    private final KeyPoolStreamListener listener;
    private final Runnable hangUp;
    private final AtomicBoolean gone = new AtomicBoolean();
    private volatile Runnable onGone = () -> { };

    /** @param hangUp tells the rest of the request that its client is gone */
    ListenerStreamClient(KeyPoolStreamListener listener, Runnable hangUp) {
        this.listener = listener;
        this.hangUp = hangUp;
    }

    @Override
    public void onGone(Runnable gone) {
        this.onGone = gone;
    }

    private void cancel() {
        if (gone.compareAndSet(false, true)) {
            hangUp.run();
            onGone.run();
        }
    }

    @Override
    public void open(Map<String, String> headers) {
        Map<String, String> named = new LinkedHashMap<>();
        KeyPoolProducer.ANSWER_HEADERS.forEach((http, name) -> {
            if (headers.get(http) != null) {
                named.put(name, headers.get(http));
            }
        });
        listener.onOpen(named, this::cancel);
    }

    @Override
    public boolean write(byte[] event) {
        if (gone.get()) {
            return false;
        }
        try {
            listener.onEvent(new String(event, StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            LOG.warn("Stream listener {} failed ({}); stream cancelled", listener.getClass().getName(), e.toString());
            cancel();
        }
        return !gone.get();
    }

    @Override
    public void end() {
        // the host learns of the end when its send returns
    }
}
