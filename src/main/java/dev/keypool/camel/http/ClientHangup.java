package dev.keypool.camel.http;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.camel.pipeline.Admission;

/**
 * A client's connection as its request sees it ({@link Admission}): whether the client hung up before its answer,
 * and what to stop when it does. The request says what it waits on as it goes: its thread while that blocks (a
 * stream, a wait for capacity; interrupted), or the provider call in flight while none does (cancelled, see
 * {@link UpstreamHttpComponent}). Either way the key and the place are free at once, not when the provider answers.
 */
public final class ClientHangup {

    private final AtomicBoolean gone = new AtomicBoolean();
    private volatile Runnable stop = () -> { };

    public boolean isGone() {
        return gone.get();
    }

    /** The client's connection closed before the answer (on its event loop). */
    public void hangUp() {
        if (gone.compareAndSet(false, true)) {
            stop.run();
        }
    }

    /** What the request waits on from now; stopped at once when the client is gone already. Stops may run twice. */
    public void whileWaiting(Runnable waitStop) {
        this.stop = waitStop;
        if (gone.get()) {
            waitStop.run();
        }
    }

    /** While the request runs on {@code thread}: interrupted on a hang-up if it is a virtual thread, else nothing. */
    public void whileRunningOn(Thread thread) {
        whileWaiting(RequestThreads.isVirtual(thread) ? thread::interrupt : () -> { });
    }
}
