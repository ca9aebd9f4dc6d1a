package dev.keypool.camel.routes;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.keypool.breaker.ChannelBreaker;
import org.apache.camel.CamelContext;
import org.apache.camel.NamedNode;
import org.apache.camel.Processor;
import org.apache.camel.Route;
import org.apache.camel.model.BeanDefinition;
import org.apache.camel.model.CircuitBreakerDefinition;
import org.apache.camel.model.ToDynamicDefinition;
import org.apache.camel.processor.DefaultProcessorFactory;
import org.apache.camel.processor.SendDynamicProcessor;
import org.apache.camel.reifier.ProcessorReifier;
import org.apache.camel.support.CamelContextHelper;
import org.apache.camel.support.PluginHelper;

/**
 * Makes the {@code circuitBreaker} steps whose {@code configuration} names a {@link ChannelBreaker} in the registry
 * (as the channel routes' {@code breaker-<channel>} does) into a {@link ChannelCircuitBreaker}, and the {@code bean}
 * steps that call a method of the exchange alone into an {@link ExchangeMethodStep}, and gives the {@code toD} steps
 * whose URI Camel does not optimise itself an expression that answers endpoints ({@link ReusedEndpoints}); every other
 * step as Camel does.
 * The model/runtime split of camel-resilience4j's {@code ResilienceReifier} and processor, for the breaker KeyPool
 * decides with.
 */
public final class ChannelBreakerFactory extends DefaultProcessorFactory {

    /**
     * Step types (their definition's class) for which no component registers a factory of its own. Camel's
     * {@link DefaultProcessorFactory} looks for one on the classpath for every step it makes and remembers only those
     * it finds, so each step of a type without one searched every jar again (most steps: about 3 % of a gateway's
     * start, GatewayBootBench's profile).
     */
    private final Map<Class<?>, Boolean> ownFactory = new ConcurrentHashMap<>();

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
        if (definition instanceof ToDynamicDefinition step) {
            Processor camels = ProcessorReifier.reifier(route, step).createProcessor();
            return camels instanceof SendDynamicProcessor send ? ReusedEndpoints.around(send) : camels;
        }
        if (definition instanceof BeanDefinition step) {
            ExchangeMethodStep direct = ExchangeMethodStep.of(route.getCamelContext(), step);
            if (direct != null) {
                return direct;
            }
        }
        if (!ownFactory.computeIfAbsent(definition.getClass(), type -> hasOwnFactory(route.getCamelContext(), type))) {
            // as Camel's factory answers when it finds none: the step's reifier makes it
            return null;
        }
        return super.createProcessor(route, definition);
    }

    private static boolean hasOwnFactory(CamelContext context, Class<?> definitionType) {
        return PluginHelper.getFactoryFinderResolver(context)
                .resolveBootstrapFactoryFinder(context.getClassResolver(), RESOURCE_PATH)
                .findClass(definitionType.getSimpleName()).isPresent();
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
