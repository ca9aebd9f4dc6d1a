package dev.keypool.gateway;

import java.util.List;

import dev.keypool.breaker.ChannelBreaker;
import dev.keypool.config.ChannelConfig;
import dev.keypool.pool.KeyPool;

/** One provider endpoint: its configuration, its key pool and its breaker. */
public record Channel(ChannelConfig config, KeyPool pool, ChannelBreaker breaker) {

    public String name() {
        return config.name();
    }

    /**
     * The model name to send upstream when a client asked for {@code model}: renamed by modelMap; a fallback
     * channel that does not serve the model answers with its first listed model rather than fail the request.
     */
    public String upstreamModel(String model) {
        if (config.servesModel(model)) {
            return config.upstreamModel(model);
        }
        List<String> concrete = config.models().stream().filter(m -> !"*".equals(m)).toList();
        return concrete.isEmpty() ? model : concrete.get(0);
    }

    /**
     * camel-http endpoint of this channel for an OpenAI path such as {@code chat/completions}; a stream gets
     * the provider's live InputStream instead of a cached copy (CAMEL-NOTES G5).
     */
    public String upstreamUri(String endpoint, boolean stream) {
        String base = config.baseUrl().endsWith("/")
                ? config.baseUrl().substring(0, config.baseUrl().length() - 1) : config.baseUrl();
        long timeoutMs = config.timeout().toMillis();
        // the method is an endpoint option rather than a header: camel-http converts a CamelHttpMethod header to its
        // enum through the type converter registry on every call, a measurable part of the gateway's own CPU time
        return base + "/" + endpoint
                + "?httpMethod=POST"
                + "&responseTimeout=" + timeoutMs
                + "&connectTimeout=" + Math.min(timeoutMs, 10_000)
                + "&connectionRequestTimeout=" + timeoutMs
                + (stream ? "&disableStreamCache=true" : "");
    }
}
