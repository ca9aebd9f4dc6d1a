package dev.keypool.breaker;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wording and level of every breaker log line (SPEC §5). Kept in one place because operators grep for
 * these lines and tests pin them word for word. The logger is named after {@link ChannelBreaker}, the class
 * operators know.
 */
final class BreakerLog {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelBreaker.class);

    private final String prefix;

    BreakerLog(String channel) {
        this.prefix = "Channel [" + channel + "] ";
    }

    void tripped(Trip trip) {
        LOG.warn("{}tripped: {}", prefix, trip.describe());
    }

    void halfOpen(HalfOpenTrial trial) {
        LOG.info("{}recovery timeout elapsed, HALF_OPEN (needs {}/{})", prefix, trial.needed(), trial.allowed());
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

    void halfOpenPassed(HalfOpenTrial trial) {
        LOG.info("{}half-open passed, CLOSED ({}/{})", prefix, trial.successes(), trial.allowed());
    }

    void halfOpenFailed(Duration reopenDelay) {
        LOG.warn("{}half-open failed, OPEN, next try in {}", prefix, seconds(reopenDelay));
    }

    void forcedOpen(String reason) {
        LOG.warn("{}forced OPEN by operator: {}", prefix, reason);
    }

    void forcedClosed() {
        LOG.info("{}forced CLOSED by operator", prefix);
    }

    private static String progress(HalfOpenTrial trial) {
        return trial.successes() + "/" + trial.needed() + " successes, " + trial.probes() + "/" + trial.allowed() + " probed";
    }

    /** Whole seconds, as the SPEC's examples print them ("60s"). */
    private static String seconds(Duration d) {
        return d.toSeconds() + "s";
    }
}
