package dev.keypool.testing;

import java.time.Duration;
import java.util.Optional;

import dev.keypool.config.DatabaseConfig;
import dev.keypool.store.Database;

/**
 * KeyPool's store on a real PostgreSQL ({@link PostgresServer}): the server started, the schema migrated, the
 * connection pool open as the gateway opens it. For tests of the stores on PostgreSQL; closing it closes the pool, then
 * stops the server.
 */
public final class PostgresDatabase implements AutoCloseable {

    private final PostgresServer server;
    private final Database database;

    private PostgresDatabase(PostgresServer server, Database database) {
        this.server = server;
        this.database = database;
    }

    public static PostgresDatabase start() {
        PostgresServer server = PostgresServer.start();
        try {
            return new PostgresDatabase(server, Database.open(
                    new DatabaseConfig(Optional.of(server.url()), Duration.ofDays(30)).postgres(), null, 4, 5000));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    public Database database() {
        return database;
    }

    public PostgresServer server() {
        return server;
    }

    @Override
    public void close() {
        database.close();
        server.close();
    }
}
