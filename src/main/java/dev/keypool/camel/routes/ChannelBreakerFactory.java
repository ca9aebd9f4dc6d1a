package dev.keypool.camel.routes;

import dev.keypool.breaker.ChannelBreaker;
import org.apache.camel.NamedNode;
import org.apache.camel.Processor;
import org.apache.camel.Route;
import org.apache.camel.model.CircuitBreakerDefinition;
import org.apache.camel.processor.DefaultProcessorFactory;
import org.apache.camel.reifier.ProcessorReifier;
import org.apache.camel.support.CamelContextHelper;

/**
 * Makes the {@code circuitBreaker} steps whose {@code configuration} names a {@link ChannelBreaker} in the registry
 * (as the channel routes' {@code breaker-<channel>} does) into a {@link ChannelCircuitBreaker}; every other step as
 * Camel does. The model/runtime split of camel-resilience4j's {@code ResilienceReifier} and processor, for the
 * breaker KeyPool decides with.
 */
public final class ChannelBreakerFactory extends DefaultProcessorFactory {

    @Override
    public Processor createProcessor(Route route, NamedNode definition) throws Exception {
        if (definition instanceof CircuitBreakerDefinition step && step.getConfiguration() != null
                && step.getOnFallback() != null && !step.getOnFallback().getOutputs().isEmpty()) {
            String name = CamelContextHelper.parseText(route.getCamelContext(), step.getConfiguration());
            ChannelBreaker breaker = route.getCamelContext().getRegistry().lookupByNameAndType(name, ChannelBreaker.class);
            if (breaker != null) {
                return new Reifier(route, step, breaker).createProcessor();
            }
        }
        return super.createProcessor(route, definition);
    }

    private static final class Reifier extends ProcessorReifier<CircuitBreakerDefinition> {
        private final ChannelBreaker breaker;

        Reifier(Route route, CircuitBreakerDefinition definition, ChannelBreaker breaker) {
            super(route, definition);
            this.breaker = breaker;
        }

        @Override
        public Processor createProcessor() throws Exception {
            Processor body = createChildProcessor(true);
            Processor fallback = createOutputsProcessor(definition.getOnFallback().getOutputs());
            return new ChannelCircuitBreaker(breaker, body, fallback, camelContext, definition);
        }
    }
}
