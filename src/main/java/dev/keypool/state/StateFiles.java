package dev.keypool.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a state file under {@code state.dir} is written (quota counts, admin changes, tasks, batches, files):
 * to a temporary file of a unique name in the same directory, forced to the disk, renamed over the target, and the
 * directory forced too, so that neither a crash nor a power loss leaves a half-written or a vanished file, and two
 * writers of one file never write into each other's temporary file. The previous version stays whole if any step
 * fails.
 */
public final class StateFiles {

    /** How a channel is made durable: {@link FileChannel#force} here; a test watches it (fsync itself cannot be seen). */
    @FunctionalInterface
    interface Sync {
        void force(FileChannel channel, Path path) throws IOException;
    }

    private static final Sync FORCE = (channel, path) -> channel.force(true);
    private static final Logger LOG = LoggerFactory.getLogger(StateFiles.class);
    /** How a temporary file of {@link #write} ends; nothing else in a state directory does. */
    private static final String TEMP_SUFFIX = ".tmp";

    private StateFiles() {
    }

    /** Replaces {@code target} with {@code content}, durably (see the class); creates its directory if need be. */
    public static void replace(Path target, byte[] content) throws IOException {
        replace(target, content, FORCE);
    }

    static void replace(Path target, byte[] content, Sync sync) throws IOException {
        write(target, sync, temp -> {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                sync.force(channel, temp);
            }
        });
    }

    /**
     * Replaces {@code target} with the bytes left in {@code content} (a slice of a mapped file is written from the
     * mapping, never through the heap), durably as {@link #replace(Path, byte[])} does.
     */
    public static void replace(Path target, ByteBuffer content) throws IOException {
        write(target, FORCE, temp -> {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = content.duplicate();
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                FORCE.force(channel, temp);
            }
        });
    }

    /** Writes a temporary file's content (and forces it) before it is renamed over its target. */
    @FunctionalInterface
    private interface TempWriter {
        void write(Path temp) throws IOException;
    }

    private static void write(Path target, Sync sync, TempWriter content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        // unique per write: two writers of the same file each rename their own, whole
        Path temp = Files.createTempFile(dir, "." + target.getFileName() + ".", TEMP_SUFFIX);
        try {
            content.write(temp);
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException notHere) {
                // a file system without atomic rename (rare; some network mounts): a plain replace is the best left
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            syncDirectory(dir, sync);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Makes the names in {@code dir} durable (a rename, a new or a deleted file), where the platform can. */
    public static void syncDirectory(Path dir) {
        try {
            syncDirectory(dir.toAbsolutePath(), FORCE);
        } catch (IOException e) {
            // the file itself was written; only a power loss could still lose the name
        }
    }

    /**
     * The files of a store's directory as it reads them back at startup, none when the directory does not exist yet.
     * The temporary files of writes that a crash cut short are deleted, not listed: their targets are whole.
     */
    public static List<Path> readBack(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> files = new ArrayList<>();
        try (Stream<Path> listed = Files.list(dir)) {
            for (Path file : (Iterable<Path>) listed::iterator) {
                if (file.getFileName().toString().endsWith(TEMP_SUFFIX)) {
                    deleteLeftOver(file);
                } else {
                    files.add(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the state files in " + dir, e);
        }
        return files;
    }

    /** Deletes a file that a crash left half-way; one that cannot be deleted is left, with a WARN, and read past. */
    public static void deleteLeftOver(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("State file {} left over and not deleted: {}", file, e.toString());
        }
    }

    /** Why a state file could not be read, in one line (Jackson's messages run over several, with the source excerpt). */
    public static String firstLine(Exception e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + message.lines().findFirst().orElse("");
    }

    private static void syncDirectory(Path dir, Sync sync) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(dir, StandardOpenOption.READ);
        } catch (IOException notOpenable) {
            return;   // Windows cannot open a directory; its renames are durable by other means
        }
        try (channel) {
            sync.force(channel, dir);
        }
    }
}
