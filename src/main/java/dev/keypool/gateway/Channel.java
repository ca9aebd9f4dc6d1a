package dev.keypool.gateway;

import java.util.List;

import dev.keypool.breaker.ChannelBreaker;
import dev.keypool.config.ChannelConfig;
import dev.keypool.pool.KeyPool;
import dev.keypool.quota.CostLedger;

/**
 * One provider endpoint: its configuration, its key pool, its breaker, what its answered calls cost and the meters its
 * upstream calls are measured with. A reload makes a new Channel for a channel that stays, around the same pool,
 * breaker, ledger and meters.
 */
public record Channel(ChannelConfig config, KeyPool pool, ChannelBreaker breaker, CostLedger costs, ChannelMeters meters) {

    /** With a cost ledger priced by the configuration's {@code pricing}, measured by nobody. */
    public Channel(ChannelConfig config, KeyPool pool, ChannelBreaker breaker) {
        this(config, pool, breaker, new CostLedger(config.pricing()), ChannelMeters.NONE);
    }

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

    /**
     * The provider's URL for an OpenAI path such as {@code chat/completions}, for {@code upstreamModel} (Azure puts
     * its deployment in the path): {@link ProviderUrls}.
     */
    public String upstreamUrl(String endpoint, String upstreamModel) {
        return ProviderUrls.url(config, endpoint, upstreamModel);
    }
}
