package dev.keypool.camel.pipeline;

import java.util.function.Supplier;

import dev.keypool.config.Api;
import dev.keypool.gateway.UpstreamPayload;
import dev.keypool.quota.TokenEstimate;

/**
 * A client's request as read and checked from its body, before its channels are planned: what the tenant's limits
 * and the planner need.
 */
public final class ClientRequest {

    private final String endpoint;
    private final Api api;
    private final String model;
    private final UpstreamPayload body;
    private final boolean stream;
    private final Supplier<TokenEstimate> estimator;
    private TokenEstimate estimate;

    /** @param estimator counts the request's tokens; asked once, when a tenant's or key's token limit first needs it */
    ClientRequest(String endpoint, Api api, String model, UpstreamPayload body, boolean stream,
                  Supplier<TokenEstimate> estimator) {
        this.endpoint = endpoint;
        this.api = api;
        this.model = model;
        this.body = body;
        this.stream = stream;
        this.estimator = estimator;
    }

    public String endpoint() {
        return endpoint;
    }

    Api api() {
        return api;
    }

    /** The model as the client named it (possibly {@code channel/model}). */
    String model() {
        return model;
    }

    UpstreamPayload body() {
        return body;
    }

    public boolean stream() {
        return stream;
    }

    /** Only ever asked from the request's own thread. */
    TokenEstimate estimate() {
        if (estimate == null) {
            estimate = estimator.get();
        }
        return estimate;
    }
}
