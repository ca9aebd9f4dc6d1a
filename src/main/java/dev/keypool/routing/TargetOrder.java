package dev.keypool.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.DoubleSupplier;

/**
 * The order in which a request tries a group's targets (design §16): tier by tier; within a tier the usable targets
 * first, drawn one after the other by the balance (the first is the chosen one, the rest are its fallbacks), then the
 * ones that had no usable key or an open breaker (the walk passes them by cheaply, and they count as walked past).
 * <p>
 * Drawing is weighted sampling without replacement (Efraimidis–Spirakis): each target gets the key
 * {@code -ln(u) / weight} for a uniform {@code u}, and the targets are taken by ascending key. With a sticky key
 * {@code u} is a hash of the sticky key and the target instead of a random number (rendezvous hashing): a tenant or
 * user stays on its target while that target is usable, whatever happens to the others.
 */
public final class TargetOrder {

    /** What the chooser needs to know of a target's channel now. */
    public interface Signals {
        /** Its breaker is not open and it has a key that could take a request. */
        boolean usable(Target target);

        /** The share (0..1) of quota its keys have left; 1 for keys without limits. */
        default double remainingQuota(Target target) {
            return 1;
        }

        /** Its mean upstream latency in milliseconds; 0 when not measured yet. */
        default double latencyMillis(Target target) {
            return 0;
        }
    }

    /** Remaining quota never scales a usable target's weight to nothing: it still serves when the others fail. */
    private static final double LEAST_SHARE = 0.01;

    private final DoubleSupplier random;

    /** @param random uniform numbers in [0, 1), injectable so that tests are exact */
    public TargetOrder(DoubleSupplier random) {
        this.random = random;
    }

    /**
     * @param sticky the tenant or user the group keeps on one target, or null to choose afresh
     */
    public List<Target> order(ModelGroup group, Signals signals, String sticky) {
        List<Target> targets = group.targets();
        int n = targets.size();
        boolean[] usable = new boolean[n];
        double[] weight = new double[n];
        double fastest = Double.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Target t = targets.get(i);
            usable[i] = signals.usable(t);
            weight[i] = t.weight();
            if (group.balance() == Balance.LATENCY) {
                double ms = signals.latencyMillis(t);
                if (ms > 0) {
                    fastest = Math.min(fastest, ms);
                }
            }
        }
        for (int i = 0; i < n; i++) {
            Target t = targets.get(i);
            switch (group.balance()) {
                case REMAINING_QUOTA -> weight[i] *= Math.max(LEAST_SHARE, Math.min(1, signals.remainingQuota(t)));
                case LATENCY -> {
                    // an unmeasured target is taken for the fastest one, so that it gets measured
                    double ms = signals.latencyMillis(t);
                    weight[i] /= Math.max(1, ms > 0 ? ms : fastest == Double.MAX_VALUE ? 1 : fastest);
                }
                default -> {
                }
            }
        }
        double[] key = new double[n];
        for (int i = 0; i < n; i++) {
            key[i] = group.balance() == Balance.PRIORITY || weight[i] <= 0 ? i
                    : -Math.log(uniform(sticky, targets.get(i))) / weight[i];
        }
        Integer[] index = new Integer[n];
        Arrays.setAll(index, i -> i);
        Arrays.sort(index, Comparator.<Integer>comparingInt(i -> targets.get(i).tier())
                .thenComparing(i -> !usable[i])
                // a weight of 0 is walked to, never chosen first
                .thenComparing(i -> weight[i] <= 0)
                .thenComparingDouble(i -> key[i]));
        List<Target> order = new ArrayList<>(n);
        for (Integer i : index) {
            order.add(targets.get(i));
        }
        return order;
    }

    /** A uniform number in (0, 1): random, or fixed by the sticky key and the target. */
    private double uniform(String sticky, Target target) {
        if (sticky == null) {
            return 1 - random.getAsDouble();
        }
        long h = mix(sticky.hashCode() * 0x9E3779B97F4A7C15L + (target.channel() + '/' + target.model()).hashCode());
        return ((h >>> 11) + 1) * 0x1.0p-53;
    }

    /** SplitMix64's finaliser: spreads a hash over all 64 bits. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
