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
        List<String> concrete = config.models().stream().filter(m -> !ChannelConfig.ANY_MODEL.equals(m)).toList();
        return concrete.isEmpty() ? model : concrete.get(0);
    }

    /** The provider's URL for an OpenAI path such as {@code chat/completions}. */
    public String upstreamUrl(String endpoint) {
        return config.baseUrl() + "/" + endpoint;
    }
}
