package dev.keypool.camel;

import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the routes of {@code database-beats} (routes/errors.camel.yaml) say when the database fails them: one WARN the
 * first time a route's beat fails, one INFO when a beat of that route works again. While the database is down every
 * beat fails, each half second for the batches' claims; an error with its stack trace on each would bury the log.
 */
public final class DatabaseBeats {

    private static final Logger LOG = LoggerFactory.getLogger(DatabaseBeats.class);

    private final Set<String> failing = ConcurrentHashMap.newKeySet();

    /** A beat failed: said once until the route's beats work again; the next beat tries again. */
    public void failed(Exchange exchange) {
        String route = exchange.getFromRouteId();
        if (failing.add(route)) {
            LOG.warn("{}: the database failed ({}); trying again on each beat, said again when it works", route,
                    safeText(exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class)));
        }
    }

    /** A beat ended; if it did not fail and the beats before did, say once that it works again. */
    public void completed(Exchange exchange) {
        if (exchange.getProperty(Exchange.EXCEPTION_CAUGHT) == null && failing.remove(exchange.getFromRouteId())) {
            LOG.info("{}: the database answers again", exchange.getFromRouteId());
        }
    }

    /** A driver's message may quote the URL with its password, or values: of an SQLException, its class and state. */
    static String safeText(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql.getClass().getSimpleName() + " (SQLState " + sql.getSQLState() + ")";
            }
        }
        return cause == null ? "unknown" : cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }
}
