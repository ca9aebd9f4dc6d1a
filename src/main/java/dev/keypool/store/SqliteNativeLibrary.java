package dev.keypool.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Properties;

import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;

/**
 * sqlite-jdbc's native library, written out of its jar in one copy and handed to sqlite-jdbc by its own settings
 * ({@code org.sqlite.lib.path}, {@code org.sqlite.lib.name}). Left to itself, sqlite-jdbc writes the library to a new
 * temporary file and then reads the jar's copy and the file back one byte at a time to compare them: 1.1 MiB through
 * two {@code read()} calls a byte, on the main thread of a start before the JIT has compiled them, a tenth of that
 * thread's CPU until the first answer (bench/README.md, "Cold start"). Written here in one copy, the file is complete
 * when the copy returns. Where an operator named a library, or the jar holds none for this platform, sqlite-jdbc is
 * left to do as it does.
 */
final class SqliteNativeLibrary {

    /** sqlite-jdbc's settings: the directory of the library to load, and its file name. */
    static final String PATH = "org.sqlite.lib.path";
    static final String NAME = "org.sqlite.lib.name";
    /** sqlite-jdbc's own setting of the directory it writes its library to; the JVM's temporary directory else. */
    static final String TMPDIR = "org.sqlite.tmpdir";

    private SqliteNativeLibrary() {
    }

    /**
     * Writes the library once per JVM and names it in {@code settings} (the system properties), unless they name one
     * already. Idempotent: a second call finds the names set.
     *
     * @return the file written, or empty when nothing was (a library named already, none in the jar, or the write
     *         failed: sqlite-jdbc then writes its own)
     */
    static synchronized Optional<Path> prepare(Properties settings) {
        if (settings.getProperty(PATH) != null || settings.getProperty(NAME) != null) {
            return Optional.empty();
        }
        String resource = LibraryLoaderUtil.getNativeLibResourcePath() + "/" + LibraryLoaderUtil.getNativeLibName();
        Path dir = Path.of(settings.getProperty(TMPDIR, settings.getProperty("java.io.tmpdir")));
        try (InputStream in = SQLiteJDBCLoader.class.getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            Path file = write(in, dir, LibraryLoaderUtil.getNativeLibName());
            settings.setProperty(PATH, file.getParent().toAbsolutePath().toString());
            settings.setProperty(NAME, file.getFileName().toString());
            return Optional.of(file);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Loads sqlite-jdbc's native library now, from the copy {@link #prepare} writes, before a connection (the pool's
     * may come later, on any thread), and removes the copy once loaded: the library stays mapped, and a JVM that is
     * killed leaves no copy behind. Where the system refuses to remove a loaded library, the file goes when the JVM
     * exits.
     */
    static void load(Properties settings) {
        Optional<Path> written = prepare(settings);
        try {
            SQLiteJDBCLoader.initialize();
        } catch (Exception e) {
            throw new IllegalStateException("Cannot load sqlite-jdbc's native library: " + e.getClass().getSimpleName(), e);
        }
        written.ifPresent(file -> {
            try {
                Files.deleteIfExists(file);
            } catch (IOException | RuntimeException e) {
                // deleteOnExit stays
            }
        });
    }

    /**
     * A new file of this process only (a random name, readable by its owner alone where the file system has POSIX
     * permissions), deleted when the JVM exits, as sqlite-jdbc's own. Its name does not start with sqlite-jdbc's
     * prefix ({@code sqlite-<version>}), so another JVM's sqlite-jdbc never takes it for a leftover of its own.
     */
    private static Path write(InputStream in, Path dir, String libraryName) throws IOException {
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        FileAttribute<?>[] ownerOnly = posix
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
                : new FileAttribute<?>[0];
        Path file = Files.createTempFile(dir, "keypool-", "-" + libraryName, ownerOnly);
        file.toFile().deleteOnExit();
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.WRITE)) {
            in.transferTo(out);
        }
        return file;
    }
}
