package dev.keypool.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.keypool.config.DatabaseConfig;
import org.flywaydb.core.Flyway;
import org.sqlite.SQLiteOpenMode;

/**
 * The control plane's store: SQLite in {@code state.dir} (a file an operator can open with {@code sqlite3}), or the
 * PostgreSQL server several instances share. Its schema is Flyway's migrations: those written once for both in
 * {@code db/migration/common} (the few types the two name differently set by placeholder), those that differ in one
 * folder per database ({@code db/migration/sqlite}, {@code db/migration/postgresql}), so that the SQL the rest of
 * KeyPool runs is the same for both. A schema already up to date costs one query ({@link ShippedSchema}); a new SQLite
 * file is a copy of the store the build migrated ({@link NewSqliteFile}).
 */
public final class Database implements AutoCloseable {

    /** The SQLite file in state.dir when no PostgreSQL URL is configured. */
    public static final String SQLITE_FILE = "keypool.db";
    /** {@link #kind()} of a PostgreSQL server. */
    public static final String POSTGRESQL = "postgresql";
    /** The page size of a new SQLite file, bytes (SQLite's default is 4,096). */
    static final int PAGE_SIZE = 16_384;

    private final HikariDataSource dataSource;
    private final String kind;
    private final boolean migrated;

    private Database(HikariDataSource dataSource, String kind, boolean migrated) {
        this.dataSource = dataSource;
        this.kind = kind;
        this.migrated = migrated;
    }

    /**
     * Opens the store and brings its schema up to date.
     *
     * @param postgres the PostgreSQL server, or empty for SQLite in {@code stateDir}
     * @param poolSize connections to PostgreSQL (SQLite takes one writer at a time whatever the pool)
     * @param lockWaitMs how long a SQLite write waits for a lock another process holds before it fails
     */
    public static Database open(Optional<DatabaseConfig.Postgres> postgres, Path stateDir, int poolSize, long lockWaitMs) {
        return open(postgres, stateDir, poolSize, lockWaitMs, NewSqliteFile.RESOURCE);
    }

    /**
     * @param newSqliteFile the resource a new SQLite file is copied from ({@link NewSqliteFile}), or null to leave a
     *                      new file to Flyway
     */
    static Database open(Optional<DatabaseConfig.Postgres> postgres, Path stateDir, int poolSize, long lockWaitMs,
            String newSqliteFile) {
        HikariConfig hikari = new HikariConfig();
        hikari.setPoolName("keypool-db");
        String kind;
        Map<String, String> types;
        if (postgres.isPresent()) {
            kind = POSTGRESQL;
            types = Map.of("row_id", "BIGSERIAL PRIMARY KEY", "double", "DOUBLE PRECISION", "bytes", "BYTEA");
            hikari.setJdbcUrl(postgres.get().jdbcUrl());
            hikari.setUsername(postgres.get().user());
            hikari.setPassword(postgres.get().password());
            hikari.setMaximumPoolSize(poolSize);
            // a batch of inserts goes to the server as multi-row INSERTs: far less work per row for the server than
            // one statement each (a setting the URL names wins)
            hikari.addDataSourceProperty("reWriteBatchedInserts", "true");
        } else {
            kind = "sqlite";
            types = Map.of("row_id", "INTEGER PRIMARY KEY", "double", "REAL", "bytes", "BLOB");
            try {
                Files.createDirectories(stateDir);
            } catch (IOException e) {
                throw new IllegalStateException("cannot create state.dir " + stateDir, e);
            }
            SqliteNativeLibrary.load(System.getProperties());
            if (!copyNewFile(stateDir.resolve(SQLITE_FILE), newSqliteFile)) {
                createWithLargePages(stateDir.resolve(SQLITE_FILE));
            }
            // WAL: readers (sqlite3, the admin queries) do not block the writer; busy_timeout: a writer waits for the
            // lock instead of failing at once; NOMUTEX: SQLite's multi-thread mode, no lock of its own taken in every
            // call (0.25 of the request log writer's 2.4 µs a row, RequestLogCostBench), since the pool hands a
            // connection to one thread at a time and sqlite-jdbc serialises the calls on one connection itself
            hikari.setJdbcUrl("jdbc:sqlite:" + stateDir.resolve(SQLITE_FILE).toAbsolutePath()
                    + "?journal_mode=WAL&synchronous=NORMAL&busy_timeout=" + lockWaitMs + "&open_mode="
                    + (SQLiteOpenMode.READWRITE.flag | SQLiteOpenMode.CREATE.flag | SQLiteOpenMode.NOMUTEX.flag));
            hikari.setMaximumPoolSize(Math.min(poolSize, 4));
        }
        // a database that is down must not hold the gateway's start: the pool connects when first asked
        hikari.setInitializationFailTimeout(-1);
        hikari.setConnectionTimeout(5000);
        HikariDataSource dataSource = new HikariDataSource(hikari);
        if (ShippedSchema.applied(dataSource, kind)) {
            return new Database(dataSource, kind, false);
        }
        try {
            Flyway flyway = Flyway.configure()
                    .dataSource(dataSource)
                    .locations("classpath:db/migration/common", "classpath:db/migration/" + kind)
                    .placeholders(types)
                    .load();
            MovedMigrations.realign(flyway, dataSource);
            flyway.migrate();
        } catch (RuntimeException | SQLException e) {
            dataSource.close();
            throw new IllegalStateException("Cannot prepare the " + kind + " database: " + safeMessage(e), e);
        }
        return new Database(dataSource, kind, true);
    }

    private static boolean copyNewFile(Path file, String resource) {
        try {
            return NewSqliteFile.copyTo(file, resource);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the sqlite database " + file, e);
        }
    }

    /**
     * A new SQLite file gets pages of {@link #PAGE_SIZE} bytes, made before the pool opens it in WAL mode (which fixes a
     * file's page size): the request log's rows fill a quarter as many pages, so each beat's commit writes fewer WAL
     * frames and a row's insert splits fewer pages (docs/decisions.md, "The request log on SQLite: what a row costs").
     * A file made before keeps its pages.
     */
    private static void createWithLargePages(Path file) {
        if (Files.exists(file)) {
            return;
        }
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
             Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA page_size = " + PAGE_SIZE);
            statement.execute("PRAGMA journal_mode = WAL");
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create the sqlite database: " + safeMessage(e), e);
        }
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** Whether Flyway was asked to bring the schema up to date: false when it already was ({@link ShippedSchema}). */
    public boolean migrated() {
        return migrated;
    }

    /** {@code sqlite} or {@code postgresql}, for logs. */
    public String kind() {
        return kind;
    }

    @Override
    public void close() {
        dataSource.close();
    }

    /** The exception's class only: a driver's message may quote the URL, with its password. */
    private static String safeMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName();
    }
}
