package dev.keypool.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.keypool.config.DatabaseConfig;
import dev.keypool.testing.LoopbackRelay;
import dev.keypool.testing.PostgresServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The request log's first batch after PostgreSQL came back is written: on a pooled connection the server dropped, and
 * when it begins just as the connection pool starts one of its longest pauses between attempts to reach the server
 * (HikariCP doubles them up to 5 s while the server is away) and the server takes a second to answer a new connection. The server is reached through a relay
 * that can go down and shows each of the pool's attempts, so that the batch begins at that moment.
 */
@Tag("slow")
class PostgresRequestLogReconnectTest {

    @Test
    void should_write_the_first_batch_after_the_server_came_back() throws Exception {
        try (PostgresServer server = PostgresServer.start(); LoopbackRelay relay = LoopbackRelay.to(server.port());
             Database database = throughRelay(relay)) {
            RequestLogWriter writer = RequestLogWriter.of(database);
            writer.insert(List.of(row("req_before")));

            relay.down();
            // the gateway's other users of the pool (its timers) keep asking for a connection while the server is away,
            // and the pool tries to reach it again and again meanwhile, its pauses doubling up to 5 s
            AtomicBoolean away = new AtomicBoolean(true);
            Thread asking = new Thread(() -> {
                while (away.get()) {
                    try (Connection connection = database.dataSource().getConnection()) {
                        connection.isValid(1);
                    } catch (SQLException e) {
                        // the server is away
                    }
                }
            }, "pool-user");
            asking.start();
            int seen = relay.refusedAt().size();
            // an attempt that came 4 s or more after the one before: the pool has just begun one of its longest pauses
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5)).until(() -> {
                List<Long> at = relay.refusedAt();
                int n = at.size();
                return n > seen && n >= 2 && at.get(n - 1) - at.get(n - 2) >= TimeUnit.SECONDS.toNanos(4)
                        && System.nanoTime() - at.get(n - 1) < TimeUnit.MILLISECONDS.toNanos(500);
            });
            relay.up(1000);
            away.set(false);
            // the server answers a new connection a second after it came: the pool's next attempt ends 6 s from now
            writer.insert(List.of(row("req_after")));
            asking.join();

            assertThat(server.rows().all()).extracting(r -> r.get("request_id")).containsExactly("req_before", "req_after");
        }
    }

    @Test
    void should_write_a_batch_whose_pooled_connection_the_server_dropped() throws Exception {
        try (PostgresServer server = PostgresServer.start(); LoopbackRelay relay = LoopbackRelay.to(server.port());
             Database database = throughRelay(relay)) {
            RequestLogWriter writer = RequestLogWriter.of(database);
            writer.insert(List.of(row("req_before")));

            // the server restarts within a beat: the connection the last batch used is cut, and the pool hands it out
            // again unchecked, as it does with a connection used in the last 500 ms
            relay.down();
            relay.up(0);
            writer.insert(List.of(row("req_after")));

            assertThat(server.rows().all()).extracting(r -> r.get("request_id")).containsExactly("req_before", "req_after");
        }
    }

    /** A pool of 4 connections to the server behind {@code relay}. */
    private static Database throughRelay(LoopbackRelay relay) {
        return Database.open(Optional.of(new DatabaseConfig.Postgres(
                "jdbc:postgresql://127.0.0.1:" + relay.port() + "/postgres?sslmode=disable", "keypool", null)),
                null, 4, 5000);
    }

    private static RequestLogRow row(String requestId) {
        return new RequestLogRow(System.currentTimeMillis(), requestId, "api", "acme", "chat", "gpt-4o-mini",
                "gpt-4o-mini", "primary", "fp-1a2b", "shared", 1, 0, 200, null, 11, 7, 0, 0, 0.0000123, 51, null, null,
                null);
    }
}
