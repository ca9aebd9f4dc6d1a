package dev.keypool.gateway;

/** A request body as it goes to a provider: its bytes for the model a channel calls it, and its content type. */
public interface UpstreamPayload {

    /**
     * The body for a channel that calls the client's model {@code upstreamModel}: its bytes ({@code byte[]}), or for an
     * upload on disk the {@link SplicedFile} the upstream call reads for each attempt.
     */
    Object forModel(String upstreamModel);

    /** The Content-Type the provider is sent. */
    String contentType();

    /** Whether the gateway asked the provider for a usage chunk the client did not ask for (and must not see). */
    default boolean usageAddedByGateway() {
        return false;
    }
}
