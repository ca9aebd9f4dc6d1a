package dev.keypool.breaker;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wording and level of every breaker log line (design §5). Kept in one place because operators grep for
 * these lines and tests pin them word for word. The lines of state changes are made here and written by
 * {@link ChannelBreaker}'s transition; the others (probe results, a recovery put off) are written here. The
 * logger is named after {@link ChannelBreaker}, the class operators know.
 */
final class BreakerLog {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelBreaker.class);

    private final String prefix;

    BreakerLog(String channel) {
        this.prefix = "Channel [" + channel + "] ";
    }

    /** A state change: WARN when the channel goes out of service, INFO otherwise. */
    void transition(BreakerState to, String line) {
        if (to == BreakerState.OPEN) {
            LOG.warn(line);
        } else {
            LOG.info(line);
        }
    }

    String tripped(Trip trip) {
        return prefix + "tripped: " + trip.describe();
    }

    String halfOpen(HalfOpenTrial trial) {
        return prefix + "recovery timeout elapsed, HALF_OPEN (needs " + trial.needed() + "/" + trial.allowed() + ")";
    }

    String halfOpenPassed(HalfOpenTrial trial) {
        return prefix + "half-open passed, CLOSED (" + trial.successes() + "/" + trial.allowed() + ")";
    }

    String halfOpenFailed(Duration reopenDelay) {
        return prefix + "half-open failed, OPEN, next try in " + seconds(reopenDelay);
    }

    String forcedOpen(String reason) {
        return prefix + "forced OPEN by operator: " + reason;
    }

    String forcedHalfOpen(HalfOpenTrial trial) {
        return prefix + "forced HALF_OPEN by operator (needs " + trial.needed() + "/" + trial.allowed() + ")";
    }

    String forcedClosed() {
        return prefix + "forced CLOSED by operator";
    }

    /** A decision another instance made and this one took over. */
    String followed(BreakerSnapshot decision) {
        String line = prefix + decision.state() + " as another instance decided";
        if (decision.state() != BreakerState.OPEN) {
            return line;
        }
        return line + " (" + (decision.trippedBy() == null ? "no reason given" : decision.trippedBy())
                + (decision.until() == null ? ", held open by an operator" : ", next try at " + decision.until()) + ")";
    }

    void noActiveKey(Duration reopenDelay) {
        LOG.info("{}recovery timeout elapsed but no ACTIVE key, OPEN, next try in {}", prefix, seconds(reopenDelay));
    }

    void probeSucceeded(HalfOpenTrial trial) {
        LOG.info("{}half-open probe succeeded ({})", prefix, progress(trial));
    }

    void probeFailed(HalfOpenTrial trial) {
        LOG.info("{}half-open probe failed ({})", prefix, progress(trial));
    }

    private static String progress(HalfOpenTrial trial) {
        return trial.successes() + "/" + trial.needed() + " successes, " + trial.probes() + "/" + trial.allowed() + " probed";
    }

    /** Whole seconds, as the example in docs/configuration.mds print them ("60s"). */
    private static String seconds(Duration d) {
        return d.toSeconds() + "s";
    }
}
