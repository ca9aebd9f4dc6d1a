package dev.keypool.gateway;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A multipart upload (audio transcriptions, translations) as sent upstream: the client's bytes with the client's
 * Content-Type, boundary included; for a channel that calls the model otherwise, only the {@code model} field's
 * value is changed.
 */
public final class MultipartBody implements UpstreamPayload {

    private final MultipartForm form;
    private final byte[] original;
    private final String contentType;
    private final MultipartForm.Field model;
    private final Map<String, byte[]> renamed = new ConcurrentHashMap<>();

    public MultipartBody(MultipartForm form, byte[] original, String contentType, MultipartForm.Field model) {
        this.form = form;
        this.original = original;
        this.contentType = contentType;
        this.model = model;
    }

    @Override
    public byte[] forModel(String upstreamModel) {
        if (upstreamModel.equals(model.value())) {
            return original;
        }
        return renamed.computeIfAbsent(upstreamModel, m -> form.replace(model, m));
    }

    @Override
    public String contentType() {
        return contentType;
    }
}
