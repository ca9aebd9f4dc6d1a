package dev.keypool.gateway;

import java.util.List;
import java.util.Set;

/**
 * How large a request body may be, by path: JSON APIs {@code keypool.max-body-bytes}, audio uploads and speech
 * ({@code /v1/audio/*}) {@code keypool.max-audio-body-bytes}, batch files ({@code /v1/files}) {@code batch.max-file-bytes};
 * none above the HTTP server's own {@code camel.server.max-body-size}. Uploads (the paths whose routes read the form
 * themselves) go to disk while they arrive instead of into the heap.
 */
public final class BodyLimits {

    private final long json;
    private final long audio;
    private final long files;
    private final Set<String> uploadPaths;

    /**
     * @param uploadPaths the request paths ({@code /v1/files}, {@code /v1/audio/transcriptions} ...) whose bodies are
     *                    spooled to disk
     */
    public BodyLimits(long json, long audio, long files, long server, Set<String> uploadPaths) {
        this.json = Math.min(json, server);
        this.audio = Math.min(audio, server);
        this.files = Math.min(files, server);
        this.uploadPaths = Set.copyOf(uploadPaths);
    }

    /** The largest body a request to {@code path} may send. */
    public long limitFor(String path) {
        if (path.endsWith("/v1/files")) {
            return files;
        }
        return path.contains("/v1/audio/") ? audio : json;
    }

    /** Every limit {@link #limitFor} answers. */
    public Set<Long> all() {
        return Set.copyOf(List.of(json, audio, files));
    }

    /** Whether a body sent to {@code path} is an upload, written to disk as it arrives. */
    public boolean isUpload(String path) {
        return uploadPaths.contains(path);
    }
}
