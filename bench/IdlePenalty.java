import java.util.Arrays;
import java.util.HashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * How much slower this machine runs the same work after its CPUs sat idle, and how long waking an idle thread
 * takes: the two costs a gateway pays at 1 connection when the upstream answers in 50 ms, and not at 0 ms.
 *
 * <pre>java bench/IdlePenalty.java</pre>
 *
 * The work is a fixed mix of memory reads, string building and map inserts (~0.1 ms warm); it runs after
 * 0, 1, 10 and 50 ms of sleep. The wake-up is the time from one thread's unpark to the parked thread running.
 */
public final class IdlePenalty {

    private static final int[] DATA = new int[1 << 18];
    private static long sink;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 20_000; i++) {
            sink += work();   // JIT warm-up
        }
        for (long idleMs : new long[] {0, 1, 10, 50}) {
            int n = idleMs == 0 ? 2_000 : idleMs == 1 ? 500 : 150;
            long[] work = new long[n];
            for (int i = 0; i < n; i++) {
                if (idleMs > 0) {
                    Thread.sleep(idleMs);
                }
                long start = System.nanoTime();
                sink += work();
                work[i] = System.nanoTime() - start;
            }
            long[] wake = wakeUps(idleMs, n);
            System.out.printf("after %2d ms idle: work p50 %6.1f us (p90 %6.1f) | thread wake-up p50 %6.1f us (p90 %6.1f)%n",
                    idleMs, p(work, 50), p(work, 90), p(wake, 50), p(wake, 90));
        }
        if (sink == 42) {
            System.out.println();   // keeps the work from being optimised away
        }
    }

    private static long work() {
        long s = 0;
        for (int r = 0; r < 4; r++) {
            for (int i = 0; i < DATA.length; i += 16) {
                s += DATA[i]++;
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 2_000; i++) {
            sb.append(i);
            if (sb.length() > 1_000) {
                sb.setLength(0);
            }
        }
        HashMap<String, Integer> m = new HashMap<>();
        for (int i = 0; i < 2_000; i++) {
            m.put("k" + i, i);
        }
        return s + sb.length() + m.size();
    }

    private static volatile long sentAt;
    private static volatile boolean signalled;

    private static long[] wakeUps(long idleMs, int n) throws InterruptedException {
        long[] latency = new long[n];
        Thread waiter = new Thread(() -> {
            for (int i = 0; i < n; i++) {
                while (!signalled) {
                    LockSupport.park();
                }
                latency[i] = System.nanoTime() - sentAt;
                signalled = false;
            }
        });
        waiter.start();
        for (int i = 0; i < n; i++) {
            if (idleMs > 0) {
                Thread.sleep(idleMs);
            }
            sentAt = System.nanoTime();
            signalled = true;
            LockSupport.unpark(waiter);
            while (signalled) {
                Thread.onSpinWait();
            }
        }
        waiter.join();
        return latency;
    }

    private static double p(long[] nanos, int percentile) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * percentile / 100)] / 1_000.0;
    }
}
