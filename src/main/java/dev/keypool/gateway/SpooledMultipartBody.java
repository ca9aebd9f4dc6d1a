package dev.keypool.gateway;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A multipart upload (audio transcriptions, translations) that was written to disk as it arrived, as sent upstream:
 * the file's bytes with the client's Content-Type, boundary included; for a channel that calls the model otherwise,
 * only the {@code model} field's value is changed, as the file is read. The file is never read into the heap.
 */
public final class SpooledMultipartBody implements UpstreamPayload {

    private final Path file;
    private final long fileBytes;
    private final String contentType;
    private final MultipartForm.Field model;

    public SpooledMultipartBody(Path file, long fileBytes, String contentType, MultipartForm.Field model) {
        this.file = file;
        this.fileBytes = fileBytes;
        this.contentType = contentType;
        this.model = model;
    }

    @Override
    public SplicedFile forModel(String upstreamModel) {
        if (upstreamModel.equals(model.value())) {
            return SplicedFile.whole(file, fileBytes);
        }
        return new SplicedFile(file, fileBytes, model.start(), model.end(), upstreamModel.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String contentType() {
        return contentType;
    }
}
