package dev.keypool.camel;

import java.util.List;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.apache.camel.NamedNode;
import org.apache.camel.Processor;
import org.apache.camel.Route;
import org.apache.camel.model.CircuitBreakerDefinition;
import org.apache.camel.model.Resilience4jConfigurationDefinition;
import org.apache.camel.processor.DefaultProcessorFactory;
import org.apache.camel.reifier.ProcessorReifier;

/**
 * Makes the {@code circuitBreaker} steps that name a resilience4j instance and have an onFallback
 * ({@code resilience4jConfiguration.circuitBreaker}, as the channel routes do) into a {@link ChannelCircuitBreaker};
 * every other step as Camel does. A step that asks for what only camel-resilience4j's processor does (a time
 * limit, a bulkhead, exceptions to record or ignore, no fallback) keeps Camel's.
 */
public final class ChannelBreakerFactory extends DefaultProcessorFactory {

    @Override
    public Processor createProcessor(Route route, NamedNode definition) throws Exception {
        if (definition instanceof CircuitBreakerDefinition breaker && asynchronous(breaker)) {
            return new Reifier(route, breaker).createProcessor();
        }
        return super.createProcessor(route, definition);
    }

    private static boolean asynchronous(CircuitBreakerDefinition breaker) {
        Resilience4jConfigurationDefinition r4j = breaker.getResilience4jConfiguration();
        return r4j != null && breaker.getConfiguration() == null && r4j.getCircuitBreaker() != null && r4j.getConfig() == null
                && breaker.getOnFallback() != null && !breaker.getOnFallback().getOutputs().isEmpty()
                && !"true".equals(r4j.getTimeoutEnabled()) && !"true".equals(r4j.getBulkheadEnabled())
                && isEmpty(r4j.getRecordExceptions()) && isEmpty(r4j.getIgnoreExceptions());
    }

    private static boolean isEmpty(List<String> list) {
        return list == null || list.isEmpty();
    }

    private static final class Reifier extends ProcessorReifier<CircuitBreakerDefinition> {
        Reifier(Route route, CircuitBreakerDefinition definition) {
            super(route, definition);
        }

        @Override
        public Processor createProcessor() throws Exception {
            Processor body = createChildProcessor(true);
            Processor fallback = createOutputsProcessor(definition.getOnFallback().getOutputs());
            String name = parseString(definition.getResilience4jConfiguration().getCircuitBreaker());
            return new ChannelCircuitBreaker(mandatoryLookup(name, CircuitBreaker.class), body, fallback);
        }
    }
}
