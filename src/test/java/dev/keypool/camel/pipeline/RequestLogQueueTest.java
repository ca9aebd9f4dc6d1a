package dev.keypool.camel.pipeline;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;

import dev.keypool.config.Api;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.store.Database;
import dev.keypool.store.RequestLogRow;
import dev.keypool.store.JdbcRequestLogWriter;
import dev.keypool.testing.RequestLogRows;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The request's side of the request log: a bounded queue that never waits, drained whole by the writer. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestLogQueueTest {

    private final Clock clock = Clock.fixed(Instant.parse("2026-12-02T10:00:00Z"), ZoneOffset.UTC);
    private final CamelContext context = new DefaultCamelContext();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final GatewayMetrics metrics = new GatewayMetrics(meters);

    @TempDir
    Path stateDir;

    @BeforeAll
    void start() {
        context.start();
    }

    @AfterAll
    void stop() {
        context.stop();
    }

    @Test
    void should_drop_and_count_a_row_when_the_queue_is_full() {
        double before = dropped();
        RequestLog log = new RequestLog(true, new LinkedBlockingQueue<>(2), clock, metrics, Duration.ofDays(30), false, 0);

        String first = refuse(log);
        String second = refuse(log);
        refuse(log);

        assertThat(dropped() - before).isEqualTo(1);
        List<RequestLogRow> rows = log.drain();
        assertThat(rows).extracting(RequestLogRow::requestId).containsExactly(first, second);
        assertThat(rows.get(0).ts()).isEqualTo(clock.millis());
        assertThat(log.drain()).isEmpty();
    }

    @Test
    void should_offer_nothing_when_the_log_is_off() {
        LinkedBlockingQueue<RequestLogRow> queue = new LinkedBlockingQueue<>(2);
        RequestLog log = new RequestLog(false, queue, clock, metrics, Duration.ofDays(30), false, 0);

        refuse(log);

        assertThat(queue).isEmpty();
    }

    @Test
    void should_write_the_rows_still_queued_when_the_gateway_stops() {
        RequestLog log = new RequestLog(true, new LinkedBlockingQueue<>(10), clock, metrics, Duration.ofDays(30), false, 0);
        String first = refuse(log);
        String second = refuse(log);

        try (Database database = Database.open(Optional.empty(), stateDir.resolve("stop"), 4, 5000)) {
            log.writeRemaining(new JdbcRequestLogWriter(database.dataSource()));
        }

        assertThat(RequestLogRows.sqlite(stateDir.resolve("stop").toString()).all())
                .extracting(row -> row.get("request_id")).containsExactly(first, second);
        assertThat(log.drain()).isEmpty();
    }

    @Test
    void should_count_the_last_rows_as_dropped_when_the_database_refuses_them() {
        double before = dropped();
        RequestLog log = new RequestLog(true, new LinkedBlockingQueue<>(10), clock, metrics, Duration.ofDays(30), false, 0);
        refuse(log);
        refuse(log);
        Database closed = Database.open(Optional.empty(), stateDir.resolve("closed"), 4, 5000);
        closed.close();

        log.writeRemaining(new JdbcRequestLogWriter(closed.dataSource()));

        assertThat(dropped() - before).isEqualTo(2);
    }

    @Test
    void should_keep_in_a_queued_row_strings_that_every_row_shares() {
        // a row waits in the queue until the writer's beat: a string made for it is one more object a young collection
        // copies meanwhile
        RequestLog log = new RequestLog(true, new LinkedBlockingQueue<>(10), clock, metrics, Duration.ofDays(30), false, 0);
        for (int i = 0; i < 2; i++) {
            Exchange exchange = new DefaultExchange(context);
            log.identify(exchange);
            exchange.setProperty(ResponseCaching.CACHE_ANSWER, ResponseCaching.HIT);
            log.answered(exchange, new GatewayRequest("chat/completions", Api.CHAT, "gpt-4o-mini", List.of(), null, false,
                    null, null), 200);
        }

        List<RequestLogRow> rows = log.drain();
        assertThat(rows).extracting(RequestLogRow::pool).containsExactly("cache-hit", "cache-hit");
        assertThat(rows.get(1).pool()).isSameAs(rows.get(0).pool());
    }

    /** The row of a request the gateway refused before planning it; its id. */
    private String refuse(RequestLog log) {
        Exchange exchange = new DefaultExchange(context);
        log.identify(exchange);
        log.failed(exchange, null, 404, "model_not_found");
        return RequestLog.id(exchange);
    }

    private double dropped() {
        return meters.get("keypool_request_log_dropped").counter().count();
    }
}
