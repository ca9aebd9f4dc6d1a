package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One key's way back (design §8, {@link Recovery}): while DISABLED, when its next probe is due and how long the one
 * after waits; once back, until when it runs degraded and how many calls it served without error since; whether its
 * error rate is over the channel's threshold. Changed by {@link KeyHealing} only. The fields a call reads are volatile
 * and written only when they change, so that a healthy key's calls write nothing here.
 */
final class KeyRecovery {

    /** The next recovery probe of the DISABLED key; null when none is planned (ACTIVE, COOLING, or not yet seen). */
    volatile Instant nextProbe;
    /** How long the key waits for its next probe: the one after waits twice as long, up to maxInterval. */
    volatile Duration waiting;
    /** Disabled by 401 or 403: probed every maxInterval only, as new credentials are rarely a matter of minutes. */
    volatile boolean refusedCredentials;
    /** Back from DISABLED: degraded until then (or {@link Recovery#CLEAN_CALLS} calls without error); null when not. */
    volatile Instant degradedUntil;
    final AtomicInteger cleanCalls = new AtomicInteger();
    /** Failing more than the channel's error rate threshold of its calls of the last 60 s, as of its last call. */
    volatile boolean failing;

    /** Nothing planned: the key is in service again. */
    void inService() {
        if (nextProbe != null) {
            nextProbe = null;
        }
    }
}
