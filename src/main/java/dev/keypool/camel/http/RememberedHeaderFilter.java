package dev.keypool.camel.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.Exchange;
import org.apache.camel.spi.HeaderFilterStrategy;

/**
 * Camel's header filter of an HTTP component (platform-http's {@code HttpHeaderFilterStrategy}, vertx-http's
 * {@code VertxHttpHeaderFilterStrategy}) with its answer for each header name remembered. Camel's decides from the
 * name alone once the value is not null (the name lower-cased, then its prefixes, its set and its pattern tried), and
 * asks it again for every header of every request and answer: the client's request headers, the provider call's, the
 * provider's answer's and the client's answer's, 1.3–1.6 % of the gateway's CPU samples at 64 connections
 * (async-profiler's itimer, bench/builds.sh). A header without a value, and names beyond the first {@link #MAX_NAMES}
 * in either direction (a client chooses its header names), are left to Camel's each time.
 */
public final class RememberedHeaderFilter implements HeaderFilterStrategy {

    /** Names remembered per direction: the headers of the API's requests and answers are a few dozen. */
    static final int MAX_NAMES = 512;

    private final HeaderFilterStrategy camels;
    private final Map<String, Boolean> toCamel = new ConcurrentHashMap<>();
    private final Map<String, Boolean> toExternal = new ConcurrentHashMap<>();

    /** @param camels a filter whose answer for a header with a value depends on its name alone */
    public RememberedHeaderFilter(HeaderFilterStrategy camels) {
        this.camels = camels;
    }

    @Override
    public boolean applyFilterToCamelHeaders(String name, Object value, Exchange exchange) {
        if (name == null || value == null) {
            return camels.applyFilterToCamelHeaders(name, value, exchange);
        }
        Boolean filtered = toCamel.get(name);
        if (filtered == null) {
            filtered = camels.applyFilterToCamelHeaders(name, value, exchange);
            remember(toCamel, name, filtered);
        }
        return filtered;
    }

    @Override
    public boolean applyFilterToExternalHeaders(String name, Object value, Exchange exchange) {
        if (name == null || value == null) {
            return camels.applyFilterToExternalHeaders(name, value, exchange);
        }
        Boolean filtered = toExternal.get(name);
        if (filtered == null) {
            filtered = camels.applyFilterToExternalHeaders(name, value, exchange);
            remember(toExternal, name, filtered);
        }
        return filtered;
    }

    private static void remember(Map<String, Boolean> answers, String name, Boolean filtered) {
        if (answers.size() < MAX_NAMES) {
            answers.put(name, filtered);
        }
    }
}
