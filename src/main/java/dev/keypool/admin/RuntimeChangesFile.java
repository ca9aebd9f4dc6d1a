package dev.keypool.admin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.state.StateFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operators' runtime changes ({@link RuntimeChanges}) in {@code state.dir/admin.json}, by fingerprint, written
 * atomically as the quota state is. A file that cannot be read is one WARN line and no changes: keypool.yaml alone
 * is a safe start.
 */
public final class RuntimeChangesFile implements RuntimeChangesStore {

    /** The file's name inside {@code state.dir}. */
    public static final String NAME = "admin.json";

    private static final Logger LOG = LoggerFactory.getLogger(RuntimeChangesFile.class);

    private final Path file;
    private final ObjectMapper mapper = new ObjectMapper();

    /** @param dir the state directory; created at the first write */
    public RuntimeChangesFile(Path dir) {
        this.file = dir.resolve(NAME);
    }

    @Override
    public Path path() {
        return file;
    }

    /** The changes saved last; none when there is no file or it cannot be read (then one WARN line says why). */
    @Override
    public RuntimeChanges read() {
        try {
            return RuntimeChanges.fromJson(mapper.readTree(Files.readAllBytes(file)));
        } catch (NoSuchFileException first) {
            return new RuntimeChanges();
        } catch (IOException | RuntimeException unreadable) {
            LOG.warn("Admin state {} ignored, runtime changes start empty: {}", file,
                    unreadable.getClass().getSimpleName() + (unreadable.getMessage() == null ? ""
                            : ": " + unreadable.getMessage().lines().findFirst().orElse("")));
            return new RuntimeChanges();
        }
    }

    /** Replaces the file with these changes; the previous file stays whole if this fails. */
    @Override
    public void write(RuntimeChanges changes) throws IOException {
        StateFiles.replace(file, mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(changes.toJson(mapper)));
    }
}
