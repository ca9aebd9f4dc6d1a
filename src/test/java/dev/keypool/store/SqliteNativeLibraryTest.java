package dev.keypool.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * sqlite-jdbc's native library is written in one copy and named to sqlite-jdbc; a library an operator named is left
 * alone. That sqlite-jdbc then loads that file: SqliteNativeLibraryLoadedTest.
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

    private static byte[] jarsLibrary() throws IOException {
        String resource = LibraryLoaderUtil.getNativeLibResourcePath() + "/" + LibraryLoaderUtil.getNativeLibName();
        try (InputStream in = SQLiteJDBCLoader.class.getResourceAsStream(resource)) {
            return in.readAllBytes();
        }
    }
}
