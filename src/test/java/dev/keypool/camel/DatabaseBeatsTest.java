package dev.keypool.camel;

import java.sql.SQLTransientConnectionException;

import dev.keypool.testing.LogCapture;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A route's failing beats are said once, and once more when they work again; the driver's message is left out. */
class DatabaseBeatsTest {

    private final DefaultCamelContext context = new DefaultCamelContext();
    private final DatabaseBeats beats = new DatabaseBeats();

    @Test
    void should_say_once_per_route_that_its_beats_fail_until_one_works_again() {
        try (LogCapture captured = LogCapture.of(DatabaseBeats.class)) {
            beats.failed(beat("batch-claims", refused()));
            beats.completed(beat("batch-claims", refused()));
            beats.failed(beat("batch-claims", refused()));
            beats.failed(beat("task-expiry", refused()));
            beats.completed(beat("batch-claims", null));
            beats.completed(beat("batch-claims", null));
            beats.failed(beat("batch-claims", refused()));

            assertThat(captured.messages(Level.WARN)).containsExactly(
                    "batch-claims: the database failed (SQLTransientConnectionException (SQLState 08001)); trying again "
                            + "on each beat, said again when it works",
                    "task-expiry: the database failed (SQLTransientConnectionException (SQLState 08001)); trying again "
                            + "on each beat, said again when it works",
                    "batch-claims: the database failed (SQLTransientConnectionException (SQLState 08001)); trying again "
                            + "on each beat, said again when it works");
            assertThat(captured.messages(Level.INFO)).containsExactly("batch-claims: the database answers again");
            assertThat(captured.all()).doesNotContain("secret");
        }
    }

    @Test
    void should_keep_a_message_of_its_own_and_leave_out_a_drivers() {
        assertThat(DatabaseBeats.safeText(new IllegalStateException("Renewing the leases of batches failed in the database: "
                + "SQLTransientConnectionException (SQLState 08001)"))).startsWith("Renewing the leases");
        assertThat(DatabaseBeats.safeText(new RuntimeException("wrapped", refused())))
                .isEqualTo("SQLTransientConnectionException (SQLState 08001)");
    }

    private Exchange beat(String route, Throwable caught) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getExchangeExtension().setFromRouteId(route);
        if (caught != null) {
            exchange.setProperty(Exchange.EXCEPTION_CAUGHT, caught);
        }
        return exchange;
    }

    private static SQLTransientConnectionException refused() {
        return new SQLTransientConnectionException("connection to jdbc:postgresql://kp:secret@db:5432/kp refused", "08001");
    }
}
