package dev.keypool.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * sqlite-jdbc's native library is written in one copy and named to sqlite-jdbc, which then loads that file instead of
 * writing and comparing its own; a library an operator named is left alone.
 */
class SqliteNativeLibraryTest {

    @TempDir
    Path tmp;

    @Test
    void should_write_the_jars_library_in_one_file_and_name_it() throws IOException {
        Properties settings = new Properties();
        settings.setProperty("java.io.tmpdir", tmp.toString());

        Path file = SqliteNativeLibrary.prepare(settings).orElseThrow();

        assertThat(file.getParent()).isEqualTo(tmp);
        assertThat(file.getFileName().toString()).startsWith("keypool-").endsWith(LibraryLoaderUtil.getNativeLibName());
        assertThat(Files.readAllBytes(file)).isEqualTo(jarsLibrary());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rwx------");
        assertThat(settings.getProperty(SqliteNativeLibrary.PATH)).isEqualTo(tmp.toAbsolutePath().toString());
        assertThat(settings.getProperty(SqliteNativeLibrary.NAME)).isEqualTo(file.getFileName().toString());
        // once: a second call finds the names set
        assertThat(SqliteNativeLibrary.prepare(settings)).isEmpty();
        try (var files = Files.list(tmp)) {
            assertThat(files).hasSize(1);
        }
    }

    @Test
    void should_write_into_sqlite_jdbcs_own_directory_when_one_is_set() {
        Properties settings = new Properties();
        settings.setProperty("java.io.tmpdir", "/nonexistent-dir-of-no-use");
        settings.setProperty(SqliteNativeLibrary.TMPDIR, tmp.toString());

        assertThat(SqliteNativeLibrary.prepare(settings)).hasValueSatisfying(file -> assertThat(file.getParent()).isEqualTo(tmp));
    }

    @Test
    void should_leave_a_library_the_operator_named_alone() throws IOException {
        Properties settings = new Properties();
        settings.setProperty("java.io.tmpdir", tmp.toString());
        settings.setProperty(SqliteNativeLibrary.PATH, "/opt/sqlite");

        assertThat(SqliteNativeLibrary.prepare(settings)).isEmpty();

        assertThat(settings.getProperty(SqliteNativeLibrary.NAME)).isNull();
        try (var files = Files.list(tmp)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void should_be_the_library_sqlite_jdbc_loads_when_a_database_opens() throws Exception {
        // a JVM of its own: sqlite-jdbc loads its library once per JVM, and this one's may have loaded it already
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-Djava.io.tmpdir=" + tmp, "-cp",
                System.getProperty("java.class.path"), OpenAndListLibraries.class.getName(), tmp.resolve("state").toString())
                .redirectErrorStream(true).start();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.exitValue()).as(out).isZero();

        List<String> loaded = out.lines().filter(line -> line.contains("sqlitejdbc")).toList();
        assertThat(loaded).as(out).isNotEmpty().allSatisfy(path -> assertThat(Path.of(path).getFileName().toString())
                .startsWith("keypool-"));
    }

    /** Opens a SQLite database in the directory given and prints the files of the libraries this process has mapped. */
    static final class OpenAndListLibraries {
        public static void main(String[] args) throws IOException {
            try (Database database = Database.open(Optional.empty(), Path.of(args[0]), 1, 5000)) {
                if (!database.reachable()) {
                    throw new IllegalStateException("the database does not answer");
                }
                Files.readAllLines(Path.of("/proc/self/maps")).stream()
                        .filter(line -> line.endsWith(".so") || line.contains(".so "))
                        .map(line -> line.substring(line.indexOf('/')))
                        .distinct()
                        .forEach(System.out::println);
            }
        }
    }

    private static byte[] jarsLibrary() throws IOException {
        String resource = LibraryLoaderUtil.getNativeLibResourcePath() + "/" + LibraryLoaderUtil.getNativeLibName();
        try (InputStream in = SQLiteJDBCLoader.class.getResourceAsStream(resource)) {
            return in.readAllBytes();
        }
    }
}
