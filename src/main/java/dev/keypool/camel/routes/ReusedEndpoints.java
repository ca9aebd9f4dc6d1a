package dev.keypool.camel.routes;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.NoSuchEndpointException;
import org.apache.camel.processor.SendDynamicProcessor;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.support.service.BaseService;

/**
 * The URI expression of a {@code toD} step, answering the endpoint of the URI it evaluates to rather than the URI:
 * each URI is resolved by Camel once and its endpoint reused. Given a URI, Camel's {@code toD} parses and normalises
 * it on every exchange (its options sorted, each part re-encoded) to find the endpoint it resolved the first time;
 * given the endpoint it sends to it at once. The request path has two such steps, the fallback walk's hop to the
 * channel route and the provider call, whose URIs take a few values per channel: their normalising was 1.0–1.8 % of
 * the gateway's CPU samples at 64 connections and 5 % of the bytes a request allocated (async-profiler's itimer and
 * alloc events, bench/builds.sh). What is sent, and where, is the same: the URI still comes from the route's own
 * expression, with its options in the route.
 *
 * <p>At most {@link #MAX_URIS} URIs are remembered per step; beyond them a URI goes through Camel's lookup as before. An
 * endpoint Camel stopped meanwhile (its route removed, its registry full) is resolved again.
 */
final class ReusedEndpoints implements Expression {

    /** URIs kept per step: a step's URIs are its channels' (and their paths' and options'), a few each. */
    static final int MAX_URIS = 512;

    private final Expression uri;
    private final Map<String, Endpoint> endpoints = new ConcurrentHashMap<>();

    private ReusedEndpoints(Expression uri) {
        this.uri = uri;
    }

    /**
     * Camel's {@code toD} processor again, its expression answering endpoints; or Camel's as it is when Camel may
     * optimise its URI itself (a component's {@code SendDynamicAware}, which needs the URI), or when the step makes a
     * new endpoint for every exchange ({@code cacheSize} below 0: a prototype endpoint, stopped after its send).
     */
    static SendDynamicProcessor around(SendDynamicProcessor camels) {
        if (camels.getCacheSize() < 0 || camels.getUri() != null && camels.isAllowOptimisedComponents()
                && ExchangeHelper.resolveScheme(camels.getUri()) != null) {
            return camels;
        }
        SendDynamicProcessor reusing = new SendDynamicProcessor(camels.getUri(), new ReusedEndpoints(camels.getExpression()));
        reusing.setCamelContext(camels.getCamelContext());
        reusing.setDisabled(camels.isDisabled());
        reusing.setPattern(camels.getPattern());
        reusing.setVariableSend(camels.getVariableSend());
        reusing.setVariableReceive(camels.getVariableReceive());
        reusing.setCacheSize(camels.getCacheSize());
        reusing.setIgnoreInvalidEndpoint(camels.isIgnoreInvalidEndpoint());
        reusing.setAllowOptimisedComponents(camels.isAllowOptimisedComponents());
        reusing.setAutoStartupComponents(camels.isAutoStartupComponents());
        return reusing;
    }

    @Override
    public void init(CamelContext context) {
        uri.init(context);
    }

    @Override
    public <T> T evaluate(Exchange exchange, Class<T> type) {
        Object value = uri.evaluate(exchange, Object.class);
        if (!(value instanceof String text)) {
            // null (nowhere to send), or already an endpoint: Camel's own handling
            return type.cast(value);
        }
        Endpoint endpoint = endpoints.get(text);
        if (endpoint == null || stopped(endpoint)) {
            endpoint = exchange.getContext().getEndpoint(text.trim());
            if (endpoint == null) {
                throw new NoSuchEndpointException(text);
            }
            if (endpoints.size() < MAX_URIS) {
                endpoints.put(text, endpoint);
            }
        }
        return type.cast(endpoint);
    }

    /** Stopped after it ran (a service not yet started counts as stopped to Camel, and may serve once started). */
    private static boolean stopped(Endpoint endpoint) {
        return endpoint instanceof BaseService service && (service.isStopping() || service.isShutdown()
                || service.isStopped() && !service.isNew() && !service.isBuild() && !service.isInit());
    }

    @Override
    public String toString() {
        return uri.toString();
    }
}
