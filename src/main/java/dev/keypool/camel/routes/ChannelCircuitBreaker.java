package dev.keypool.camel.routes;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

import dev.keypool.breaker.ChannelBreaker;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeExtension;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.Message;
import org.apache.camel.NamedNode;
import org.apache.camel.Navigate;
import org.apache.camel.Processor;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.api.management.ManagedOperation;
import org.apache.camel.api.management.ManagedResource;
import org.apache.camel.spi.IdAware;
import org.apache.camel.spi.ManagementAgent;
import org.apache.camel.spi.RouteIdAware;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.service.ServiceHelper;

/**
 * A channel route's {@code circuitBreaker} step (made by {@link ChannelBreakerFactory}): the same contract as
 * camel-resilience4j's processor, but its body runs asynchronously and the channel's {@link ChannelBreaker} is the
 * breaker. Camel's runs the body and waits for it, so a request would hold its thread for the whole provider call
 * even though the call itself holds none.
 *
 * <p>What it keeps of Camel's: the breaker admits the call or not (the one admission check of a visit); a rejected or
 * failed call runs onFallback with the failure as {@code CamelExceptionCaught} (none when rejected), the message as it
 * was before the visit, and the {@code CamelCircuitBreaker*} properties set as Camel sets them. Unlike Camel's, the
 * body runs on the exchange itself, not on a copy ({@link Visit}). The fallback runs to its end before the step ends,
 * as in Camel's. Unlike Camel's it reports no outcome: what a visit's end means for the channel is the route's to say
 * (its steps know a client that left from a provider that failed), and they tell the breaker once.
 *
 * <p>Over JMX it is the step's processor MBean ({@code type=processors,name="<channel>-breaker"}) with the breaker's
 * state, figures and operator actions, as camel-resilience4j's processor shows its breaker. Camel registers it with
 * the other processors when its MBeans level takes processors; at the level KeyPool ships ({@code RoutesOnly}, which
 * registers no processor) the step registers itself under the same name, as the one processor worth an MBean. The
 * actions are the breaker's own (logged, announced to the other instances); unlike the admin API's they are not kept
 * over a restart.
 */
@ManagedResource(description = "KeyPool channel breaker")
public final class ChannelCircuitBreaker extends AsyncProcessorSupport implements Navigate<Processor>, IdAware, RouteIdAware {

    private final ChannelBreaker breaker;
    private final AsyncProcessor body;
    private final Processor fallback;
    private final CamelContext context;
    private final NamedNode definition;
    private String id;
    private String routeId;
    /** The MBean this step registered itself (none when Camel registers processors, or without JMX). */
    private ObjectName registered;

    ChannelCircuitBreaker(ChannelBreaker breaker, Processor body, Processor fallback, CamelContext context,
                          NamedNode definition) {
        this.breaker = breaker;
        this.body = AsyncProcessorConverterHelper.convert(body);
        this.fallback = fallback;
        this.context = context;
        this.definition = definition;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        // as in a doTry block: failures go to onFallback, not to the route's error handler
        exchange.setProperty(ExchangePropertyKey.TRY_ROUTE_BLOCK, true);
        if (!breaker.admits()) {
            runFallback(exchange);
            callback.done(true);
            return true;
        }
        Visit visit = new Visit(exchange);
        try {
            return body.process(exchange, doneSync -> {
                complete(exchange, visit);
                callback.done(doneSync);
            });
        } catch (Throwable e) {
            exchange.setException(e);
            complete(exchange, visit);
            callback.done(true);
            return true;
        }
    }

    private void complete(Exchange exchange, Visit visit) {
        Throwable failure = exchange.getException();
        if (failure == null) {
            exchange.setProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_SUCCESSFUL_EXECUTION, true);
            exchange.setProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_FROM_FALLBACK, false);
            exchange.setProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_STATE, breaker.state().name());
            exchange.removeProperty(ExchangePropertyKey.TRY_ROUTE_BLOCK);
        } else {
            visit.undo(exchange);
            exchange.setException(failure);
            runFallback(exchange);
        }
    }

    /**
     * What a visit's body may leave on the exchange that a failed visit must not pass on: the message as it was (the
     * provider call's headers, the key's among them, and its body), and Camel's record of the failure (where it
     * happened, and that its error handler handled it, which would stop the next channel's error handler from retrying).
     * Camel's breaker runs its body on a copy of the exchange instead, and copies the results back on success: a copy of
     * every property and header per visit, and their put-back (1.8–2.6 % of the gateway's CPU samples and 4.4–4.7 % of
     * the bytes a request allocated at 64 connections, async-profiler through bench/builds.sh). The properties a failed body set
     * stay: the request's state is its {@code GatewayRequest}, and each visit sets what it reads.
     */
    private static final class Visit {
        private final Message message;
        private final Object body;
        private final Map<String, Object> headers;
        private final Object toEndpoint;
        private final Object failureEndpoint;

        Visit(Exchange exchange) {
            message = exchange.getIn();
            body = message.getBody();
            headers = message.hasHeaders() ? new HashMap<>(message.getHeaders()) : null;
            toEndpoint = exchange.getProperty(ExchangePropertyKey.TO_ENDPOINT);
            failureEndpoint = exchange.getProperty(ExchangePropertyKey.FAILURE_ENDPOINT);
        }

        void undo(Exchange exchange) {
            exchange.setIn(message);
            message.setBody(body);
            message.removeHeaders("*");
            if (headers != null) {
                message.getHeaders().putAll(headers);
            }
            put(exchange, ExchangePropertyKey.TO_ENDPOINT, toEndpoint);
            put(exchange, ExchangePropertyKey.FAILURE_ENDPOINT, failureEndpoint);
            exchange.removeProperty(ExchangePropertyKey.FAILURE_ROUTE_ID);
            exchange.removeProperty(ExchangePropertyKey.UNIT_OF_WORK_EXHAUSTED);
            ExchangeExtension extension = exchange.getExchangeExtension();
            extension.setFailureHandled(false);
            extension.setErrorHandlerHandled(null);
            extension.setRedeliveryExhausted(false);
            exchange.setRollbackOnly(false);
            exchange.setRollbackOnlyLast(false);
        }

        private static void put(Exchange exchange, ExchangePropertyKey key, Object value) {
            if (value == null) {
                exchange.removeProperty(key);
            } else {
                exchange.setProperty(key, value);
            }
        }
    }

    /** onFallback, for a call the breaker rejected (no exception on the exchange) or one that failed. */
    private void runFallback(Exchange exchange) {
        exchange.setProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_STATE, breaker.state().name());
        exchange.setProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_SUCCESSFUL_EXECUTION, false);
        exchange.setProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_FROM_FALLBACK, true);
        exchange.setProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_SHORT_CIRCUITED, true);
        if (exchange.getProperty(ExchangePropertyKey.FAILURE_ENDPOINT) == null) {
            exchange.setProperty(ExchangePropertyKey.FAILURE_ENDPOINT, exchange.getProperty(ExchangePropertyKey.TO_ENDPOINT));
        }
        exchange.setProperty(ExchangePropertyKey.EXCEPTION_HANDLED, true);
        exchange.setProperty(ExchangePropertyKey.EXCEPTION_CAUGHT, exchange.getException());
        exchange.setRouteStop(false);
        exchange.setException(null);
        exchange.getExchangeExtension().setRedeliveryExhausted(false);
        try {
            fallback.process(exchange);
        } catch (Throwable e) {
            exchange.setException(e);
        }
        exchange.removeProperty(ExchangePropertyKey.TRY_ROUTE_BLOCK);
    }

    @ManagedAttribute(description = "The channel this breaker guards")
    public String getChannel() {
        return breaker.channel();
    }

    @ManagedAttribute(description = "CLOSED, OPEN or HALF_OPEN")
    public String getCircuitBreakerState() {
        return breaker.state().name();
    }

    @ManagedAttribute(description = "Whether an operator holds it OPEN (it then stays OPEN until closed)")
    public boolean isForcedOpen() {
        return breaker.forcedOpen();
    }

    @ManagedAttribute(description = "The state and the figures each trigger looks at, taken together at one moment: "
            + "errorRatePercent, callsInWindow, averageLatencyMs, maxKeyConsecutiveFailures, poolExhaustedCount, trippedBy "
            + "(empty when CLOSED), nextAttemptAt (when OPEN and not forced), halfOpenProbes, halfOpenSuccesses")
    public CompositeData getFigures() {
        return RecordCompositeData.of(breaker.figures());
    }

    @ManagedAttribute(description = "The channel's breaker: block of keypool.yaml, as in force (halfOpenRequests, "
            + "halfOpenSuccess, the triggers' thresholds and windows)")
    public CompositeData getSettings() {
        return RecordCompositeData.of(breaker.settings());
    }

    @ManagedOperation(description = "Holds the channel OPEN until forced closed (or half-open)")
    public void forceOpen(String reason) {
        breaker.forceOpen(reason == null || reason.isBlank() ? "JMX" : reason);
    }

    @ManagedOperation(description = "CLOSED with fresh windows, whatever the state")
    public void forceClosed() {
        breaker.forceClosed();
    }

    @ManagedOperation(description = "HALF_OPEN now: the next halfOpenRequests requests are probes")
    public void forceHalfOpen() {
        breaker.forceHalfOpen();
    }

    @Override
    public List<Processor> next() {
        return List.of(body, fallback);
    }

    @Override
    public boolean hasNext() {
        return true;
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public void setId(String id) {
        this.id = id;
    }

    @Override
    public String getRouteId() {
        return routeId;
    }

    @Override
    public void setRouteId(String routeId) {
        this.routeId = routeId;
    }

    @Override
    protected void doBuild() throws Exception {
        ServiceHelper.buildService(body, fallback);
    }

    @Override
    protected void doInit() throws Exception {
        ServiceHelper.initService(body, fallback);
    }

    @Override
    protected void doStart() throws Exception {
        ServiceHelper.startService(body, fallback);
        ManagementAgent agent = context.getManagementStrategy() == null ? null
                : context.getManagementStrategy().getManagementAgent();
        if (agent != null && !agent.getMBeansLevel().isProcessors() && registered == null) {
            ObjectName name = context.getManagementStrategy().getManagementObjectNameStrategy()
                    .getObjectNameForProcessor(context, this, definition);
            agent.register(this, name, true);
            registered = name;
        }
    }

    @Override
    protected void doStop() throws Exception {
        ServiceHelper.stopService(body, fallback);
    }

    @Override
    protected void doShutdown() throws Exception {
        if (registered != null) {
            ManagementAgent agent = context.getManagementStrategy().getManagementAgent();
            if (agent != null) {
                agent.unregister(registered);
            }
            registered = null;
        }
    }

    @Override
    public String toString() {
        return "ChannelCircuitBreaker[" + breaker.channel() + "]";
    }
}
