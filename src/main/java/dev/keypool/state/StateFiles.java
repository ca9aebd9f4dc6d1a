package dev.keypool.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

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
        Path temp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
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
