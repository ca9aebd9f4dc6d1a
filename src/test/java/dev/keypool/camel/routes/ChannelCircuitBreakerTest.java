package dev.keypool.camel.routes;

import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import dev.keypool.breaker.BreakerSettings;
import dev.keypool.breaker.ChannelBreaker;
import dev.keypool.events.StateListener;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ManagementMBeansLevel;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.Navigate;
import org.apache.camel.Processor;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.resilience4j.ResilienceProcessor;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.ProcessorFactory;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.apache.camel.builder.Builder.constant;
import static org.apache.camel.builder.Builder.simple;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The channel routes' circuitBreaker step as {@link ChannelBreakerFactory} makes it: a body that completes later,
 * on another thread (as a provider call through vertx-http does), does not hold the caller; the channel's breaker
 * admits the call or not, and hears of its outcome from the route's steps only; onFallback runs as with
 * camel-resilience4j's processor.
 */
class ChannelCircuitBreakerTest {

    private final ChannelBreaker breaker = new ChannelBreaker("test", BreakerSettings.defaults(), () -> true,
            Clock.systemUTC(), StateListener.NONE);
    /** The body's calls in flight: each completes when the test says so, on the answering thread. */
    private final LinkedBlockingQueue<PendingCall> calls = new LinkedBlockingQueue<>();
    private final ExecutorService answering = Executors.newSingleThreadExecutor();
    private CamelContext context;

    private record PendingCall(Exchange exchange, AsyncCallback callback) {
    }

    @BeforeEach
    void start() throws Exception {
        context = new DefaultCamelContext();
        context.getCamelContextExtension().addContextPlugin(ProcessorFactory.class, new ChannelBreakerFactory());
        context.getRegistry().bind("breaker-test", breaker);
        context.getRegistry().bind("provider", new LaterProcessor());
        // a lambda, not a RouteBuilder subclass: Camel Main in the other tests scans this package for those
        RouteBuilder.addRoutes(context, routes -> {
            routes.from("direct:channel").routeId("channel")
                    .circuitBreaker().configuration("breaker-test")
                        .setProperty("insideBreaker", constant("set"))
                        .setProperty("changedInside", constant("after"))
                        .setHeader("Authorization", constant("Bearer sk-provider-key"))
                        .process("provider")
                    .onFallback()
                        .setBody(simple("fallback after ${exchangeProperty.CamelExceptionCaught}"))
                    .end();
            // a resilience4j breaker of its own, as any Camel application writes it
            routes.from("direct:timed").routeId("timed")
                    .circuitBreaker().resilience4jConfiguration().timeoutEnabled(true).timeoutDuration(1000).end()
                        .setBody(constant("timed"))
                    .onFallback()
                        .setBody(constant("fallback"))
                    .end();
        });
        context.start();
    }

    @AfterEach
    void stop() {
        context.stop();
        answering.shutdownNow();
    }

    @Test
    void should_give_the_caller_its_thread_back_while_the_call_is_in_flight_and_complete_when_it_answers() throws Exception {
        Exchange exchange = new DefaultExchange(context);
        exchange.setProperty("changedInside", "before");
        exchange.setProperty("untouched", "kept");
        CompletableFuture<Boolean> done = new CompletableFuture<>();

        // with camel-resilience4j's processor this call returns only once the provider has answered
        CompletableFuture<Boolean> returned = CompletableFuture.supplyAsync(() -> channel().process(exchange, done::complete));

        assertThat(returned.get(10, TimeUnit.SECONDS)).as("completed synchronously").isFalse();
        assertThat(calls).hasSize(1);
        assertThat(done).isNotDone();
        answer(null, "the provider's answer");
        assertThat(done.get(10, TimeUnit.SECONDS)).as("doneSync").isFalse();
        assertThat(exchange.getMessage().getBody(String.class)).isEqualTo("the provider's answer");
        assertThat(exchange.getProperty("insideBreaker")).as("results of a success are kept").isEqualTo("set");
        assertThat(exchange.getProperty("changedInside")).as("and what it changed").isEqualTo("after");
        assertThat(exchange.getProperty("untouched")).isEqualTo("kept");
        assertThat(exchange.getProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_SUCCESSFUL_EXECUTION, Boolean.class)).isTrue();
        assertThat(breaker.figures().callsInWindow()).as("outcomes are the route's to report").isZero();
        assertThat(exchange.getException()).isNull();
    }

    @Test
    void should_run_the_fallback_with_the_failure_when_the_call_fails() throws Exception {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setHeader("X-Before", "kept");
        CompletableFuture<Boolean> done = new CompletableFuture<>();

        channel().process(exchange, done::complete);
        answer(new IllegalStateException("provider down"), null);

        done.get(10, TimeUnit.SECONDS);
        assertThat(exchange.getMessage().getBody(String.class))
                .isEqualTo("fallback after java.lang.IllegalStateException: provider down");
        assertThat(exchange.getMessage().getHeaders()).as("the message as it was before the visit")
                .containsOnlyKeys("X-Before").containsEntry("X-Before", "kept");
        assertThat(exchange.getProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_FROM_FALLBACK, Boolean.class)).isTrue();
        assertThat(exchange.getException()).as("handled by the fallback").isNull();
        assertThat(breaker.figures().callsInWindow()).as("outcomes are the route's to report").isZero();
    }

    @Test
    void should_not_call_the_body_when_the_breaker_refuses_and_run_the_fallback_without_a_failure() throws Exception {
        breaker.forceOpen("test");
        Exchange exchange = new DefaultExchange(context);

        CompletableFuture<Boolean> done = new CompletableFuture<>();

        channel().process(exchange, done::complete);

        done.get(10, TimeUnit.SECONDS);
        assertThat(calls).isEmpty();
        assertThat(exchange.getMessage().getBody(String.class)).isEqualTo("fallback after ");
        assertThat(exchange.getProperty(ExchangePropertyKey.CIRCUIT_BREAKER_RESPONSE_SHORT_CIRCUITED, Boolean.class)).isTrue();
    }

    @Test
    void should_leave_a_circuit_breaker_that_names_no_channel_breaker_to_camel_resilience4j() {
        assertThat(breakerStep("timed")).isInstanceOf(ResilienceProcessor.class);
        assertThat(breakerStep("channel")).isInstanceOf(ChannelCircuitBreaker.class);
    }

    @ParameterizedTest
    @EnumSource(value = ManagementMBeansLevel.class, names = {"Default", "RoutesOnly"})
    void should_show_the_channel_breaker_over_jmx_once_whether_camel_registers_processors_or_not(
            ManagementMBeansLevel level) throws Exception {
        CamelContext withJmx = new DefaultCamelContext();
        withJmx.getCamelContextExtension().setName("breaker-jmx-" + level);
        withJmx.getManagementStrategy().getManagementAgent().setMBeansLevel(level);
        withJmx.getCamelContextExtension().addContextPlugin(ProcessorFactory.class, new ChannelBreakerFactory());
        withJmx.getRegistry().bind("breaker-test", breaker);
        RouteBuilder.addRoutes(withJmx, routes -> routes.from("direct:channel").routeId("channel")
                .circuitBreaker().id("test-breaker").configuration("breaker-test")
                    .setBody(constant("served"))
                .onFallback()
                    .setBody(constant("fallback"))
                .end());
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName pattern = new ObjectName("org.apache.camel:context=breaker-jmx-" + level
                + ",type=processors,name=\"test-breaker\",*");
        withJmx.start();
        try {
            Set<ObjectName> found = server.queryNames(pattern, null);
            assertThat(found).hasSize(1);
            ObjectName name = found.iterator().next();
            assertThat(server.getAttribute(name, "CircuitBreakerState")).isEqualTo("CLOSED");
            server.invoke(name, "forceOpen", new Object[] {"maintenance"}, new String[] {String.class.getName()});
            assertThat(breaker.forcedOpen()).isTrue();
            // processors other than the breaker step have an MBean only where Camel registers processors
            assertThat(server.queryNames(new ObjectName("org.apache.camel:context=breaker-jmx-" + level
                    + ",type=processors,*"), null)).hasSizeGreaterThan(level.isProcessors() ? 1 : 0)
                    .hasSizeLessThanOrEqualTo(level.isProcessors() ? Integer.MAX_VALUE : 1);
        } finally {
            withJmx.stop();
        }
        assertThat(server.queryNames(pattern, null)).as("gone with its context").isEmpty();
    }

    private AsyncProcessor channel() {
        return AsyncProcessorConverterHelper.convert(context.getRoute("channel").getConsumer().getProcessor());
    }

    /** Completes the oldest call in flight, from the answering thread: with this failure, or this body. */
    private void answer(Exception failure, String body) throws InterruptedException {
        PendingCall call = calls.poll(10, TimeUnit.SECONDS);
        assertThat(call).as("a call in flight").isNotNull();
        answering.execute(() -> {
            if (failure != null) {
                call.exchange().setException(failure);
            } else {
                call.exchange().getMessage().setBody(body);
            }
            call.callback().done(false);
        });
    }

    private Processor breakerStep(String routeId) {
        return find(context.getRoute(routeId).navigate());
    }

    @SuppressWarnings("unchecked")
    private static Processor find(Navigate<Processor> navigate) {
        if (navigate == null || navigate.next() == null) {
            return null;
        }
        for (Processor p : navigate.next()) {
            if (p instanceof ChannelCircuitBreaker || p instanceof ResilienceProcessor) {
                return p;
            }
            if (p instanceof Navigate<?> nested) {
                Processor found = find((Navigate<Processor>) nested);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /** A provider call through an asynchronous producer: answered later, by {@link #answer}. */
    private final class LaterProcessor implements AsyncProcessor {
        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            calls.add(new PendingCall(exchange, callback));
            return false;
        }

        @Override
        public void process(Exchange exchange) {
            throw new UnsupportedOperationException("asynchronous only");
        }

        @Override
        public CompletableFuture<Exchange> processAsync(Exchange exchange) {
            throw new UnsupportedOperationException("asynchronous only");
        }
    }
}
