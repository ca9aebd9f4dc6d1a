package dev.keypool.pool;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Smooth weighted round-robin over the eligible keys, nginx's algorithm: each pick adds every eligible key's
 * weight to its running score, takes the key with the highest score and lowers that score by the sum of the
 * weights. Deterministic and fair: weights 5:3:2 give exactly 5, 3 and 2 picks in every 10, spread out rather than
 * in runs; a key that is not eligible neither gains nor loses turns, so the others share its traffic evenly
 * instead of the key after it inheriting all of it.
 * <p>
 * With a shared {@link Rotation} (gateway instances on one Redis, design §11) a pick that has a position of the
 * channel's rotation at hand takes the key at that position instead ({@link #at}), so that the instances' picks
 * interleave as one rotation; a pick without one (none leased yet, Redis away) falls back to this instance's own.
 */
public final class RoundRobinStrategy implements SelectionStrategy {

    public static final String NAME = "round-robin";
    /**
     * Effective weights count in twentieths at a position: the factors of design §8 (a quarter, 20 %, 50 %, 10 %)
     * are whole numbers of them, so the shares come out exact.
     */
    private static final int SHARES_PER_WEIGHT = 20;
    /** A rotation longer than this (weights of far-apart sizes) is left to the local rotation, which has no period. */
    private static final long LONGEST_PERIOD = 10_000;

    private final Rotation rotation;
    /** Running score per key; guarded by this. */
    private final Map<ApiKey, double[]> scores = new IdentityHashMap<>();

    /** This instance's own rotation only. */
    public RoundRobinStrategy() {
        this(Rotation.LOCAL);
    }

    /** Picks at {@code rotation}'s positions while it has them. */
    public RoundRobinStrategy(Rotation rotation) {
        this.rotation = rotation;
    }

    @Override
    public Optional<ApiKey> pick(List<ApiKey> keys, Predicate<ApiKey> eligible, ToDoubleFunction<ApiKey> weight) {
        // eligibility is decided outside the lock: it may apply the clock to a key's state, and log it
        List<ApiKey> candidates = new ArrayList<>(keys.size());
        double[] weights = new double[keys.size()];
        for (ApiKey key : keys) {
            double w;
            if (eligible.test(key) && (w = weight.applyAsDouble(key)) > 0) {
                weights[candidates.size()] = w;
                candidates.add(key);
            }
        }
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        OptionalLong position = rotation.next();
        if (position.isPresent()) {
            ApiKey atPosition = at(position.getAsLong(), candidates, weights);
            if (atPosition != null) {
                return Optional.of(atPosition);
            }
        }
        synchronized (this) {
            ApiKey best = null;
            double[] bestScore = null;
            double total = 0;
            for (int i = 0; i < candidates.size(); i++) {
                double w = weights[i];
                double[] score = scores.computeIfAbsent(candidates.get(i), k -> new double[1]);
                score[0] += w;
                total += w;
                if (bestScore == null || score[0] > bestScore[0]) {
                    best = candidates.get(i);
                    bestScore = score;
                }
            }
            bestScore[0] -= total;
            return Optional.of(best);
        }
    }

    /**
     * The key at {@code position} of the rotation of these candidates: their effective weights in whole shares
     * (twentieths, reduced by their greatest common divisor) make a period of as many positions as the shares add up
     * to, in which each key gets exactly its shares, interleaved: round {@code j} of the period takes, in configuration
     * order, every key with more than {@code j} shares. Equal weights are plain rotation, position modulo the count.
     * A key that is not a candidate (cooling, disabled, tried, out of room) is not in the period: the others share
     * its positions by their weights. Null when the period would be longer than {@link #LONGEST_PERIOD}.
     */
    static ApiKey at(long position, List<ApiKey> candidates, double[] weights) {
        int n = candidates.size();
        long[] shares = new long[n];
        long divisor = 0;
        for (int i = 0; i < n; i++) {
            shares[i] = Math.max(1, Math.round(weights[i] * SHARES_PER_WEIGHT));
            divisor = gcd(divisor, shares[i]);
        }
        long period = 0;
        for (int i = 0; i < n; i++) {
            shares[i] /= divisor;
            period += shares[i];
        }
        if (period > LONGEST_PERIOD) {
            return null;
        }
        long rest = Math.floorMod(position, period);
        // rounds with the same keys in them are skipped together: a level is the next smallest share above the last
        long done = 0;
        while (true) {
            long level = Long.MAX_VALUE;
            int inRound = 0;
            for (long s : shares) {
                if (s > done) {
                    inRound++;
                    level = Math.min(level, s);
                }
            }
            long span = (level - done) * inRound;
            if (rest < span) {
                long k = rest % inRound;
                for (int i = 0; i < n; i++) {
                    if (shares[i] > done && k-- == 0) {
                        return candidates.get(i);
                    }
                }
            }
            rest -= span;
            done = level;
        }
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    @Override
    public String toString() {
        return NAME;
    }
}
