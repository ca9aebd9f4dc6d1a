package dev.keypool.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * A new SQLite store made from the one the build migrated ({@value #RESOURCE}, written by {@link #main} at the build's
 * process-classes phase): a copy of a file whose schema Flyway made from this build's migrations, which
 * {@link ShippedSchema} then finds up to date in one query. Flyway making the schema of a new file took 100–250 ms of
 * the main thread at every first start on a new state.dir (every new container), most of it Flyway's own start
 * (its plugins, the migration files listed, read and parsed, each in a transaction of its own), before the routes
 * could load (docs/decisions.md, "A start does only what serving needs"). Where the jar holds no such file (classes
 * run from an IDE), Flyway makes the store; a file made by an older build is brought up to date by
 * Flyway like any store of that build.
 */
final class NewSqliteFile {

    /** The migrated store in the jar. */
    static final String RESOURCE = "db/new/" + Database.SQLITE_FILE;

    private NewSqliteFile() {
    }

    /**
     * Writes the build's migrated store to {@code file} when there is none yet: a copy written beside it and then
     * moved onto the name, so that a store is never seen half written; a file there already is kept.
     *
     * @return whether it wrote the file (false: a file there already, or no migrated store in the jar)
     */
    static boolean copyTo(Path file, String resource) throws IOException {
        if (resource == null || Files.exists(file)) {
            return false;
        }
        try (InputStream in = NewSqliteFile.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return false;
            }
            // a name of this process's, made with the permissions SQLite would give the file (a temporary file's are
            // the owner's alone)
            Path partial = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + ".new");
            try {
                Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
                Files.move(partial, file);
                return true;
            } catch (FileAlreadyExistsException e) {
                // another process made it in the meantime: its file is the store
                return false;
            } finally {
                Files.deleteIfExists(partial);
            }
        }
    }

    /**
     * The build's step: migrates a new store with Flyway and writes it to {@code args[0]}, the {@value #RESOURCE} of
     * the jar.
     */
    public static void main(String[] args) throws IOException {
        Path target = Path.of(args[0]);
        Path dir = Files.createTempDirectory("keypool-new-store-");
        try {
            // closed at once: with its last connection gone, SQLite has written its log into the file and removed it
            Database.open(Optional.empty(), dir, 1, 5_000, null).close();
            Files.createDirectories(target.toAbsolutePath().getParent());
            Files.copy(dir.resolve(Database.SQLITE_FILE), target, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(dir);
        }
    }
}
