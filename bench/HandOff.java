import java.io.IOException;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What one hand-off between two threads costs on this machine, after both sat idle for a pause: the time from one
 * thread handing a token on to the next one running, for each kind of hand-off a plain request makes in the
 * gateway (an event loop in epoll, a platform thread, a virtual thread parked or newly started).
 *
 * <pre>java bench/HandOff.java [pauses in ms, default "0 50"] [hand-offs per cell, default 200]</pre>
 *
 * Java 21+ (virtual threads). Run it with the gateway's flags to see what they change, e.g.
 * {@code -Djdk.virtualThreadScheduler.parallelism=1}. The sender sleeps the pause, stamps {@code System.nanoTime()},
 * hands the token on and waits for the receiver to take it; the receiver stamps when it runs. Nothing spins: both
 * threads are parked through the pause, as a gateway's threads are while the provider thinks.
 */
public final class HandOff {

    private static final AtomicLong SENT = new AtomicLong();

    public static void main(String[] args) throws Exception {
        long[] pauses = Arrays.stream((args.length > 0 ? args[0] : "0 50").trim().split("\\s+"))
                .mapToLong(Long::parseLong).toArray();
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        System.out.printf("HandOff: %d hand-offs per cell; virtual-thread scheduler parallelism %s; %d CPUs%n", n,
                System.getProperty("jdk.virtualThreadScheduler.parallelism", "default"),
                Runtime.getRuntime().availableProcessors());
        for (int round = 0; round < 2; round++) {   // the first round warms the JIT and is not printed
            for (long pause : pauses) {
                cell(round, "platform -> parked platform thread", pause, n, false, Receiver.PARKED_PLATFORM);
                cell(round, "platform -> parked virtual thread", pause, n, false, Receiver.PARKED_VIRTUAL);
                cell(round, "platform -> new virtual thread", pause, n, false, Receiver.NEW_VIRTUAL);
                cell(round, "platform -> selector thread (event loop)", pause, n, false, Receiver.SELECTOR);
                cell(round, "virtual -> parked virtual thread", pause, n, true, Receiver.PARKED_VIRTUAL);
                cell(round, "virtual -> new virtual thread", pause, n, true, Receiver.NEW_VIRTUAL);
                cell(round, "virtual -> selector thread (event loop)", pause, n, true, Receiver.SELECTOR);
            }
        }
    }

    enum Receiver { PARKED_PLATFORM, PARKED_VIRTUAL, NEW_VIRTUAL, SELECTOR }

    private static void cell(int round, String name, long pauseMs, int n, boolean virtualSender, Receiver kind)
            throws Exception {
        long[] latency = new long[round == 0 ? Math.min(n, 50) : n];
        Runnable sender = () -> {
            try {
                run(kind, pauseMs, latency);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        Thread thread = virtualSender ? Thread.ofVirtual().start(sender) : Thread.ofPlatform().start(sender);
        thread.join();
        if (round > 0) {
            System.out.printf("%-42s after %2d ms: p50 %7.1f us  p90 %7.1f us%n", name, pauseMs, p(latency, 50),
                    p(latency, 90));
        }
    }

    private static void run(Receiver kind, long pauseMs, long[] latency) throws Exception {
        int n = latency.length;
        switch (kind) {
            case NEW_VIRTUAL -> {
                ExecutorService perTask = Executors.newVirtualThreadPerTaskExecutor();
                for (int i = 0; i < n; i++) {
                    pause(pauseMs);
                    int at = i;
                    CountDownLatch done = new CountDownLatch(1);
                    SENT.set(System.nanoTime());
                    perTask.execute(() -> {
                        latency[at] = System.nanoTime() - SENT.get();
                        done.countDown();
                    });
                    done.await();
                }
                perTask.close();
            }
            case PARKED_PLATFORM, PARKED_VIRTUAL -> {
                Thread self = Thread.currentThread();
                AtomicInteger index = new AtomicInteger();
                Runnable receive = () -> {
                    while (index.get() < n) {
                        LockSupport.park();
                        long sent = SENT.getAndSet(0);
                        if (sent != 0) {
                            latency[index.getAndIncrement()] = System.nanoTime() - sent;
                            LockSupport.unpark(self);
                        }
                    }
                };
                Thread receiver = kind == Receiver.PARKED_VIRTUAL ? Thread.ofVirtual().start(receive)
                        : Thread.ofPlatform().start(receive);
                for (int i = 0; i < n; i++) {
                    pause(pauseMs);
                    SENT.set(System.nanoTime());
                    LockSupport.unpark(receiver);
                    while (index.get() <= i) {
                        LockSupport.park();
                    }
                }
                receiver.join();
            }
            case SELECTOR -> {
                Selector selector = Selector.open();
                Thread self = Thread.currentThread();
                AtomicInteger index = new AtomicInteger();
                Thread loop = Thread.ofPlatform().start(() -> {
                    try {
                        while (index.get() < n) {
                            selector.select();
                            long sent = SENT.getAndSet(0);
                            if (sent != 0) {
                                latency[index.getAndIncrement()] = System.nanoTime() - sent;
                                LockSupport.unpark(self);
                            }
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                for (int i = 0; i < n; i++) {
                    pause(pauseMs);
                    SENT.set(System.nanoTime());
                    selector.wakeup();
                    while (index.get() <= i) {
                        LockSupport.park();
                    }
                }
                loop.join();
                selector.close();
            }
            default -> throw new IllegalArgumentException(kind.toString());
        }
    }

    private static void pause(long ms) throws InterruptedException {
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    private static double p(long[] nanos, int percentile) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * percentile / 100)] / 1_000.0;
    }
}
