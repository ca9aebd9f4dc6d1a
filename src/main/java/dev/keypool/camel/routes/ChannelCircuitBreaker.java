package dev.keypool.camel.routes;

import java.util.List;
import java.util.Map;

import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

import dev.keypool.breaker.ChannelBreaker;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.NamedNode;
import org.apache.camel.Navigate;
import org.apache.camel.Processor;
import org.apache.camel.Route;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.api.management.ManagedOperation;
import org.apache.camel.api.management.ManagedResource;
import org.apache.camel.spi.IdAware;
import org.apache.camel.spi.ManagementAgent;
import org.apache.camel.spi.RouteIdAware;
import org.apache.camel.spi.UnitOfWork;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.UnitOfWorkHelper;
import org.apache.camel.support.service.ServiceHelper;

/**
 * A channel route's {@code circuitBreaker} step (made by {@link ChannelBreakerFactory}): the same contract as
 * camel-resilience4j's processor, but its body runs asynchronously and the channel's {@link ChannelBreaker} is the
 * breaker. Camel's runs the body and waits for it, so a request would hold its thread for the whole provider call
 * even though the call itself holds none.
 *
 * <p>What it keeps of Camel's: the breaker admits the call or not (the one admission check of a visit); the body runs
 * on a copy of the exchange, whose results are copied back only on success; a rejected or failed call runs onFallback
 * with the failure as {@code CamelExceptionCaught} (none when rejected) and the {@code CamelCircuitBreaker*}
 * properties set as Camel sets them. The fallback runs to its end before the step ends, as in Camel's. Unlike Camel's
 * it reports no outcome: what a visit's end means for the channel is the route's to say (its steps know a client
 * that left from a provider that failed), and they tell the breaker once.
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
        Exchange copy = ExchangeHelper.createCorrelatedCopy(exchange, false);
        UnitOfWork copyUow = unitOfWork(exchange, copy);
        try {
            return body.process(copy, doneSync -> {
                complete(exchange, copy, copyUow);
                callback.done(doneSync);
            });
        } catch (Throwable e) {
            copy.setException(e);
            complete(exchange, copy, copyUow);
            callback.done(true);
            return true;
        }
    }

    /** The copy's unit of work, made as Camel's breaker makes it when the copy has none: starting in the original's route. */
    private static UnitOfWork unitOfWork(Exchange original, Exchange copy) {
        UnitOfWork uow = copy.getUnitOfWork();
        if (uow == null) {
            uow = PluginHelper.getUnitOfWorkFactory(copy.getContext()).createUnitOfWork(copy);
            copy.getExchangeExtension().setUnitOfWork(uow);
            Route route = ExchangeHelper.getRoute(original);
            if (route != null) {
                uow.pushRoute(route);
            }
        }
        return uow;
    }

    private void complete(Exchange exchange, Exchange copy, UnitOfWork uow) {
        Throwable failure = copy.getException();
        UnitOfWorkHelper.doneUow(uow, copy);
        if (failure == null) {
            copyPropertiesBack(exchange, copy);
            ExchangeHelper.copyResults(exchange, copy);
            exchange.setProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_SUCCESSFUL_EXECUTION, true);
            exchange.setProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_FROM_FALLBACK, false);
            exchange.setProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_STATE, breaker.state().name());
            exchange.removeProperty(ExchangePropertyKey.TRY_ROUTE_BLOCK);
        } else {
            exchange.setException(failure);
            runFallback(exchange);
        }
    }

    /**
     * The body's properties back on the exchange, as {@link ExchangeHelper#copyResults} would put them all at once,
     * which it then has none left to do: only those the body set or changed. Its {@code putAll} on a
     * {@code ConcurrentHashMap} sizes the map for the copy's entries as if none were there yet, which doubles the
     * exchange's table on every request (1.5 % of the gateway's CPU at 64 connections, async-profiler in
     * bench/builds.sh); and the copy holds every property the exchange had, most of them untouched, each of which a
     * put would write again under its bin's lock (2 % of the CPU, the same profile).
     */
    private static void copyPropertiesBack(Exchange exchange, Exchange copy) {
        if (copy.hasProperties()) {
            Map<String, Object> properties = exchange.getProperties();
            copy.getProperties().forEach((name, value) -> {
                if (properties.get(name) != value) {
                    properties.put(name, value);
                }
            });
            copy.getProperties().clear();
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
