package dev.keypool.camel;

import dev.keypool.camel.pipeline.ProviderHeaders;
import org.apache.camel.CamelContext;

/** How each channel's provider is addressed beyond its key: the headers its keypool.yaml entry adds to every call. */
final class ProviderBeans {

    private ProviderBeans() {
    }

    static void bind(CamelContext context) {
        context.getRegistry().bind("providerHeaders", new ProviderHeaders());
    }
}
