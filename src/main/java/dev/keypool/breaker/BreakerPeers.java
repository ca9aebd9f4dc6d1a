package dev.keypool.breaker;

import java.util.Optional;

/**
 * The breakers of the same channels on the other gateway instances (design §11), as a {@link ChannelBreaker} sees them:
 * it announces its decisions to them, and takes each half-open probe from a budget they share, so that all instances
 * together send at most {@code halfOpenRequests} probes per half-open period. {@link #LOCAL}: one instance alone.
 * Called without the breaker's lock held.
 */
public interface BreakerPeers {

    /** The probe results of one half-open period on all instances, this one's included. */
    record ProbeTally(long period, int successes, int failures) { }

    /** No other instance: nothing to tell, every probe is this instance's own to count. */
    BreakerPeers LOCAL = new BreakerPeers() {
        @Override
        public void announce(BreakerSnapshot decision) {
        }

        @Override
        public boolean takeProbe(String channel, long period, int allowed) {
            return true;
        }

        @Override
        public Optional<ProbeTally> recordProbe(String channel, long period, boolean success) {
            return Optional.empty();
        }
    };

    /** A breaker made for a channel: the peers may tell it of the other instances' decisions ({@link ChannelBreaker#follow}). */
    default void attach(ChannelBreaker breaker) {
    }

    /** Tells the other instances of a decision made here (not of one taken over from them). */
    void announce(BreakerSnapshot decision);

    /**
     * Takes one probe of {@code channel}'s half-open {@code period} from the budget all instances share.
     *
     * @return false when the instances together have sent {@code allowed} probes in this period already; true also
     *         when the budget cannot be asked (then this instance's own gate limits its probes)
     */
    boolean takeProbe(String channel, long period, int allowed);

    /** Counts a probe's result for all instances; empty when only this instance's own count is known. */
    Optional<ProbeTally> recordProbe(String channel, long period, boolean success);
}
