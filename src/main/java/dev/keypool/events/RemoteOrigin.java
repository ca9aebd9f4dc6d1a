package dev.keypool.events;

import java.util.function.Supplier;

/**
 * Marks the state changes an instance makes only because another instance made them first (a key's state, a breaker
 * decision, a tenant or an operator's change taken over through Redis, design §11). Such a copy is not a new event:
 * {@link EventLog} leaves it out, since the instance that made the change tells its own event to the others.
 */
public final class RemoteOrigin {

    private static final ThreadLocal<Boolean> APPLYING = ThreadLocal.withInitial(() -> false);

    private RemoteOrigin() {
    }

    /** Runs {@code apply} with the changes it makes marked as taken over from another instance. */
    public static void run(Runnable apply) {
        get(() -> {
            apply.run();
            return null;
        });
    }

    /** {@link #run} with a result. */
    public static <T> T get(Supplier<T> apply) {
        boolean outer = APPLYING.get();
        APPLYING.set(true);
        try {
            return apply.get();
        } finally {
            APPLYING.set(outer);
        }
    }

    /** Whether the change being made on this thread is taken over from another instance. */
    public static boolean active() {
        return APPLYING.get();
    }
}
