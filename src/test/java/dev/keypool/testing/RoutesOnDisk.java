package dev.keypool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * A copy of the repository's routes/ in a temporary directory, for a gateway that loads its routes from there and
 * reloads a file when it changes ({@code camel.main.routes-reload-enabled}); the test edits the files on disk the way
 * an operator would.
 */
public final class RoutesOnDisk {

    private final Path dir;

    private RoutesOnDisk(Path dir) {
        this.dir = dir;
    }

    /** Copies every routes/*.camel.yaml of the repository. */
    public static RoutesOnDisk copyOfRoutes() {
        try {
            Path dir = Files.createTempDirectory("keypool-routes-");
            dir.toFile().deleteOnExit();
            try (Stream<Path> files = Files.list(Path.of("routes"))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".camel.yaml")).toList()) {
                    Files.copy(file, dir.resolve(file.getFileName())).toFile().deleteOnExit();
                }
            }
            return new RoutesOnDisk(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Adds to a gateway's properties: load the routes from this copy and watch it for changes. */
    public Properties watchedBy(Properties p) {
        p.put("camel.main.routes-include-pattern", "file:" + dir + "/*.camel.yaml");
        p.put("camel.main.routes-reload-enabled", "true");
        p.put("camel.main.routes-reload-directory", dir.toString());
        p.put("camel.main.routes-reload-pattern", "*.camel.yaml");
        return p;
    }

    /**
     * The edit most tests make: {@code added} (YAML lines, indented as the file needs them) inserted right after
     * {@code anchor}, which must occur in the file exactly once so the edit lands where the test means it to.
     */
    public void insertAfter(String file, String anchor, String added) throws IOException {
        String yaml = read(file);
        int at = yaml.indexOf(anchor);
        if (at < 0 || yaml.indexOf(anchor, at + 1) >= 0) {
            throw new IllegalStateException("expected exactly one '" + anchor.strip() + "' in " + file);
        }
        int end = at + anchor.length();
        write(file, yaml.substring(0, end) + added + yaml.substring(end));
    }

    public String read(String file) throws IOException {
        return Files.readString(dir.resolve(file));
    }

    /**
     * Writes the file in one atomic rename, so the watcher sees one whole new file; the temporary file's name does not
     * end in .camel.yaml, so the watcher ignores it.
     */
    public void write(String file, String yaml) throws IOException {
        Path temp = dir.resolve(file + ".tmp");
        Files.writeString(temp, yaml);
        Files.move(temp, dir.resolve(file), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
