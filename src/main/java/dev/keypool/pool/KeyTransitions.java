package dev.keypool.pool;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a key of a pool changes state ({@link #transition}), and the one way an operator's or a reload's
 * change that is not a move of state is told ({@link #announce}): each writes one log line and one event, by the
 * caller whose change it was.
 */
final class KeyTransitions {

    private static final Logger LOG = LoggerFactory.getLogger(KeyPool.class);

    private final PoolSettings settings;
    private final PoolKeys keys;
    /** Keys an operator disabled: a successful probe does not bring them back, only the operator does. */
    private final Set<String> disabledByOperator = ConcurrentHashMap.newKeySet();

    KeyTransitions(PoolSettings settings, PoolKeys keys) {
        this.settings = settings;
        this.keys = keys;
    }

    /**
     * Applied atomically; when it changed anything, one log line (WARN for DISABLED, else INFO) and one event.
     *
     * @param message what happened, given the availability now in place
     * @return the availability now in place
     */
    KeyAvailability transition(ApiKey key, UnaryOperator<KeyAvailability> change, Function<KeyAvailability, String> message) {
        KeyAvailability.Change done = key.updateAvailability(change);
        if (!done.changed()) {
            return done.after();
        }
        if (done.before().state() == KeyState.DISABLED && done.after().state() == KeyState.ACTIVE) {
            // back in service (re-enabled, or a probe succeeded): it ramps up over the channel's warmup
            keys.ramp(key).enteredService(settings.clock().instant());
            key.recovery().inService();
        }
        String line = line(key, message.apply(done.after()));
        if (done.after().state() == KeyState.DISABLED) {
            LOG.warn(line);
        } else {
            LOG.info(line);
        }
        tell(key, done.before().state(), done.after().state(), line);
        return done.after();
    }

    /** Applies the clock to the key's cooling deadline and returns its availability now. */
    KeyAvailability refresh(ApiKey key) {
        Instant now = settings.clock().instant();
        return transition(key, current -> current.expireCooling(now), after -> "cooled down, ACTIVE");
    }

    /** Whether the key may take a new call now, quotas aside: not excluded, not draining, ACTIVE. */
    boolean usable(ApiKey key, Set<String> excluded) {
        return !excluded.contains(key.fingerprint()) && !key.draining() && refresh(key).state() == KeyState.ACTIVE;
    }

    /** One log line (INFO) and one event for an operator's or a reload's change that is not a move of the key's state. */
    void announce(ApiKey key, KeyState from, KeyState to, String message) {
        String line = line(key, message);
        LOG.info(line);
        tell(key, from, to, line);
    }

    boolean disabledByOperator(String fingerprint) {
        return disabledByOperator.contains(fingerprint);
    }

    void markDisabledByOperator(String fingerprint, boolean byOperator) {
        if (byOperator) {
            disabledByOperator.add(fingerprint);
        } else {
            disabledByOperator.remove(fingerprint);
        }
    }

    /** " (warming up 3m)" for a key that warms up as it comes back, else nothing. */
    String warmingUp() {
        Duration warmup = settings.warmup();
        if (warmup.isZero()) {
            return "";
        }
        return " (warming up " + shortly(warmup) + ")";
    }

    /** A duration as a line says it: 3m, 90s, 250ms. */
    static String shortly(Duration duration) {
        long seconds = duration.toSeconds();
        return seconds > 0 && seconds % 60 == 0 && duration.toMillis() % 1000 == 0 ? seconds / 60 + "m"
                : seconds > 0 ? seconds + "s" : duration.toMillis() + "ms";
    }

    /** A share as a line says it: 50 %, 12.5 %. */
    static String percent(double percent) {
        return (percent == Math.rint(percent) ? String.valueOf((long) percent) : String.valueOf(percent)) + " %";
    }

    private String line(ApiKey key, String message) {
        return "Key " + key.fingerprint() + "(" + settings.channel() + ") " + message;
    }

    private void tell(ApiKey key, KeyState from, KeyState to, String line) {
        settings.listener().stateChanged(new KeyStateChange(settings.clock().instant(), settings.channel(),
                key.fingerprint(), from, to, line));
    }
}
