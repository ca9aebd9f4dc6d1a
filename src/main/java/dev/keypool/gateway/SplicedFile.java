package dev.keypool.gateway;

import java.nio.file.Path;

/**
 * A request body on disk as a provider is sent it: the file's bytes, with bytes {@code [from, to)} replaced by
 * {@code replacement} (a renamed {@code model} field) or none replaced. It says what to send, not how: the upstream
 * call reads the file anew for every attempt, so that nothing of it stays in the heap and a retry sends the same
 * bytes from the start.
 */
public record SplicedFile(Path file, long fileBytes, long from, long to, byte[] replacement) {

    private static final byte[] NONE = new byte[0];

    public SplicedFile {
        if (from < 0 || to < from || to > fileBytes) {
            throw new IllegalArgumentException("range [" + from + ", " + to + ") outside a file of " + fileBytes + " bytes");
        }
    }

    /** The whole file as it is. */
    public static SplicedFile whole(Path file, long fileBytes) {
        return new SplicedFile(file, fileBytes, 0, 0, NONE);
    }

    /** Whether any byte is replaced. */
    public boolean spliced() {
        return replacement.length > 0 || to > from;
    }

    /** How many bytes are sent: the provider's Content-Length. */
    public long length() {
        return fileBytes - (to - from) + replacement.length;
    }

    /**
     * What to send of a chunk of the file read at {@code chunkStart}, {@code chunkLength} bytes long: its bytes up to
     * {@code headEnd}, then the replacement when {@code insert}, then its bytes from {@code tailStart}; offsets within
     * the chunk.
     */
    public record Cut(int headEnd, boolean insert, int tailStart) {

        /** Whether the chunk goes as it is (it lies before or after the replaced range). */
        public boolean unchanged() {
            return headEnd == tailStart && !insert;
        }
    }

    public Cut cut(long chunkStart, int chunkLength) {
        int headEnd = clamp(from - chunkStart, chunkLength);
        int tailStart = clamp(to - chunkStart, chunkLength);
        boolean insert = replacement.length > 0 && from >= chunkStart && from < chunkStart + chunkLength;
        return new Cut(headEnd, insert, tailStart);
    }

    private static int clamp(long offset, int length) {
        return (int) Math.max(0, Math.min(length, offset));
    }
}
