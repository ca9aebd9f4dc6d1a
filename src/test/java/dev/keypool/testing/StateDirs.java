package dev.keypool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import dev.keypool.store.Database;

/**
 * A state.dir for a test's gateway that holds a copy of a SQLite store whose schema is migrated already. On an empty
 * state.dir a gateway migrates its store with Flyway at every start, some 40 ms of each of the suite's ~180 boots
 * (the "schema migrated in" lines of {@code bench/suite-time.sh}'s log); on the copy it finds the schema up to date in
 * one query, as a gateway started again on its own state.dir does. The migrated store is made once per test JVM by
 * {@link Database#open} itself, so it is this build's schema. The migrations themselves are the store's tests'
 * (ShippedSchemaTest, the request-log writers' contract), on databases of their own.
 */
public final class StateDirs {

    private static Path migrated;

    private StateDirs() {
    }

    /** A new, empty state.dir but for the migrated store. */
    public static Path fresh() {
        try {
            return withMigratedStore(Files.createTempDirectory("keypool-state-"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code dir} with the migrated store in it, unless it has a store already (a gateway that ran on it before). */
    public static Path withMigratedStore(Path dir) {
        try {
            Files.createDirectories(dir);
            Path store = dir.resolve(Database.SQLITE_FILE);
            if (Files.notExists(store)) {
                Files.copy(migrated(), store);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static synchronized Path migrated() throws IOException {
        if (migrated == null) {
            Path dir = Files.createTempDirectory("keypool-migrated-");
            // closed at once: with its last connection gone, SQLite has written its log into the file and removed it
            Database.open(Optional.empty(), dir, 1, 5_000).close();
            migrated = dir.resolve(Database.SQLITE_FILE);
        }
        return migrated;
    }
}
