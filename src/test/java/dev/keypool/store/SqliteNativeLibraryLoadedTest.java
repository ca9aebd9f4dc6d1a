package dev.keypool.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library {@link SqliteNativeLibrary} writes is the one sqlite-jdbc loads when a database opens, in a JVM of its
 * own: sqlite-jdbc loads its library once per JVM, and the test JVM's may have loaded it already.
 */
@Tag("slow")
class SqliteNativeLibraryLoadedTest {

    @TempDir
    Path tmp;

    @Test
    @EnabledOnOs(OS.LINUX)
    void should_be_the_library_sqlite_jdbc_loads_when_a_database_opens() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-Djava.io.tmpdir=" + tmp, "-cp",
                System.getProperty("java.class.path"), OpenAndListLibraries.class.getName(), tmp.resolve("state").toString())
                .redirectErrorStream(true).start();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.exitValue()).as(out).isZero();

        // the copy is removed once loaded: a JVM that is killed leaves none behind
        assertThat(out).doesNotContain("left: ");
        List<String> loaded = out.lines().filter(line -> line.contains("sqlitejdbc")).toList();
        assertThat(loaded).as(out).isNotEmpty().allSatisfy(path -> assertThat(Path.of(path).getFileName().toString())
                .startsWith("keypool-"));
    }

    /** Opens a SQLite database in the directory given and prints the files of the libraries this process has mapped. */
    static final class OpenAndListLibraries {
        public static void main(String[] args) throws IOException {
            try (Database database = Database.open(Optional.empty(), Path.of(args[0]), 1, 5000)) {
                try (java.sql.Connection connection = database.dataSource().getConnection()) {
                    if (!connection.isValid(2)) {
                        throw new IllegalStateException("the database does not answer");
                    }
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
                try (var left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
                    left.filter(file -> file.getFileName().toString().startsWith("keypool-"))
                            .forEach(file -> System.out.println("left: " + file));
                }
                Files.readAllLines(Path.of("/proc/self/maps")).stream()
                        .filter(line -> line.endsWith(".so") || line.contains(".so "))
                        .map(line -> line.substring(line.indexOf('/')))
                        .distinct()
                        .forEach(System.out::println);
            }
        }
    }
}
