package dev.keypool.camel.http;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.BooleanSupplier;

import dev.keypool.camel.batch.AsyncTasks;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.camel.routes.ReloadGate;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RequestBody;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.Processor;
import org.apache.camel.component.platform.http.PlatformHttpEndpoint;
import org.apache.camel.component.platform.http.spi.PlatformHttpConsumer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpConsumer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpEngine;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.model.ModelCamelContext;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.spi.HeaderFilterStrategy;

/**
 * platform-http's Vert.x engine, with consumers that hold no thread while a request waits for its provider, and write
 * the answer from the thread that ends the route.
 *
 * <p>platform-http's own consumer runs the route on a worker ({@code executeBlocking}) and waits there until the route
 * is done: the request's thread parks while the provider thinks, is woken by the thread that got the answer once the
 * rest of the route has run on it, and then hands the answer to the event loop to be written, which wakes that too.
 * Here the route is started asynchronously on the request thread, which ends where the provider call begins; the thread
 * that got the answer ({@link UpstreamHttpComponent}) runs the rest and writes the answer, so Vert.x wakes the event
 * loop once, for the write. Each hand-off wakes a parked thread, and after the provider's 50 ms a parked thread wakes
 * slowly on this machine (bench/README.md, "Where a request's time goes").
 *
 * <p>Where nothing before the provider call can block ({@code routeOnEventLoop}: no state shared through Redis, whose
 * calls wait for their answer), a request to an entry of the LLM APIs (the routes of template {@value #ENTRY_TEMPLATE})
 * with a JSON body of at most {@value #EVENT_LOOP_BODY_BYTES} bytes, read already, runs its route up to the call on the
 * event loop that read it: no request thread is woken, and the loop that sends the call is the one that ran the route.
 * The steps that may still wait (the walk's wait for quota room, an injected fault) move the request to a request
 * thread first ({@link LeaveEventLoop}); a larger body, an upload and an asynchronous task ({@code X-KeyPool-Async},
 * written to the task store) start on a request thread as before.
 *
 * <p>What platform-http does besides for a few requests (an HTTP proxy's, form fields copied into headers) is left to
 * it: those go through its own consumer.
 *
 * <p>With live route reload on ({@code reloadSafe}), a consumer hands a request it cannot take to the
 * {@link ReloadGate} rather than answer it: the gate checks a route's consumer before the request reaches it, on an
 * event loop, while the reload suspends the consumer on a thread of its own, so a request that passed the gate just
 * before the suspension would get the suspended consumer's 503 with no body.
 */
public final class GatewayHttpEngine extends VertxPlatformHttpEngine {

    /**
     * platform-http's own writing of an exchange's answer to the response (status, headers through the endpoint's
     * filter, the body whatever its type), package-private in VertxPlatformHttpSupport.
     */
    private static final MethodHandle WRITE_RESPONSE = writeResponse();

    /** The route template every entry of the LLM APIs is made from (routes/gateway.camel.yaml). */
    static final String ENTRY_TEMPLATE = "keypool-entry";
    /** The parameter of {@value #ENTRY_TEMPLATE} that names the entry's API. */
    static final String ENTRY_API_PARAMETER = "api";

    /** The largest body whose route runs on the event loop: reading, planning and translating it take time by its size. */
    static final int EVENT_LOOP_BODY_BYTES = 64 * 1024;

    private final boolean reloadSafe;
    private final boolean routeOnEventLoop;
    private final BooleanSupplier blocksForNow;

    /**
     * @param routeOnEventLoop whether nothing before the provider call blocks but the steps {@link LeaveEventLoop} guards,
     *                         so that an entry's route may start on the event loop that read its request
     * @param blocksForNow     whether something before the call may block for now all the same (the tokenizer's load,
     *                         at start): asked per request that could run on the event loop
     */
    public GatewayHttpEngine(boolean reloadSafe, boolean routeOnEventLoop, BooleanSupplier blocksForNow) {
        this.reloadSafe = reloadSafe;
        this.routeOnEventLoop = routeOnEventLoop;
        this.blocksForNow = blocksForNow;
    }

    public GatewayHttpEngine(boolean reloadSafe, boolean routeOnEventLoop) {
        this(reloadSafe, routeOnEventLoop, () -> false);
    }

    @Override
    public PlatformHttpConsumer createConsumer(PlatformHttpEndpoint endpoint, Processor processor) {
        return new Consumer(endpoint, processor, this);
    }

    private static MethodHandle writeResponse() {
        try {
            Class<?> support = Class.forName("org.apache.camel.component.platform.http.vertx.VertxPlatformHttpSupport");
            return MethodHandles.privateLookupIn(support, MethodHandles.lookup()).findStatic(support, "writeResponse",
                    MethodType.methodType(Future.class, RoutingContext.class, Exchange.class, HeaderFilterStrategy.class,
                            boolean.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("platform-http-vertx without VertxPlatformHttpSupport.writeResponse", e);
        }
    }

    private static final class Consumer extends VertxPlatformHttpConsumer {

        private final boolean reloadSafe;
        private final boolean routeOnEventLoop;
        private final BooleanSupplier blocksForNow;
        /** Whether this consumer's route is an entry of the LLM APIs; known once the route has started. */
        private volatile Boolean entry;

        Consumer(PlatformHttpEndpoint endpoint, Processor processor, GatewayHttpEngine engine) {
            super(endpoint, processor, engine.getHandlers(), VertxPlatformHttpRouter.getRouterNameFromPort(engine.getServerPort()));
            this.reloadSafe = engine.reloadSafe;
            this.routeOnEventLoop = engine.routeOnEventLoop && endpoint.isUseBodyHandler();
            this.blocksForNow = engine.blocksForNow;
        }

        @Override
        protected void handleRequest(RoutingContext request) {
            if (!reloadSafe) {
                take(request);
                return;
            }
            // the lifecycle lock: suspend and stop cannot come between this check and the one in take
            lock.lock();
            try {
                if (isStarted()) {
                    take(request);
                    return;
                }
            } finally {
                lock.unlock();
            }
            if (!ReloadGate.holdBack(request)) {
                super.handleRequest(request);
            }
        }

        /** On the event loop that read the request's head. */
        private void take(RoutingContext request) {
            if (isSuspended() || getEndpoint().isHttpProxy() || formFields(request)) {
                super.handleRequest(request);
                return;
            }
            Context eventLoop = request.vertx().getOrCreateContext();
            Exchange exchange = createExchange(false);
            // InOnly, not platform-http's InOut: the answer is written from the message the route ends with either
            // way, and an InOut exchange has its message copied (headers and all) at the end of every route it crosses
            exchange.setPattern(ExchangePattern.InOnly);
            exchange.setProperty(Exchanges.ANSWERED_AT_ROUTE_END, Boolean.TRUE);
            exchange.setProperty(Exchanges.REQUEST_EVENT_LOOP, eventLoop);
            processHttpRequest(exchange, request).onComplete(read -> {
                if (read.failed()) {
                    failed(exchange, request, read.cause());
                    return;
                }
                // no handler on its completion: the route's end writes the answer, on whichever thread it ends
                if (onEventLoop(request)) {
                    if (reloadSafe) {
                        // after the lifecycle lock, which this may still hold: the loop's next task, no thread woken
                        eventLoop.runOnContext(v -> route(exchange, request, eventLoop));
                    } else {
                        route(exchange, request, eventLoop);
                    }
                    return;
                }
                request.vertx().executeBlocking(() -> {
                    route(exchange, request, eventLoop);
                    return null;
                }, false);
            });
        }

        /** Whether this request's route may run on the event loop that read it, up to its provider call. */
        private boolean onEventLoop(RoutingContext request) {
            if (!routeOnEventLoop || !entry()) {
                return false;
            }
            RequestBody body = request.body();
            if (!body.available() || body.length() > EVENT_LOOP_BODY_BYTES) {
                return false;
            }
            String type = request.request().getHeader(HttpHeaders.CONTENT_TYPE);
            return (type == null || !type.regionMatches(true, 0, "multipart/", 0, 10))
                    && request.request().getHeader(AsyncTasks.HEADER) == null && !blocksForNow.getAsBoolean();
        }

        /**
         * Made from {@value #ENTRY_TEMPLATE}: Camel keeps no template's id on its routes, so by the parameter every
         * entry names and no other template has, its API.
         */
        private boolean entry() {
            Boolean known = entry;
            if (known == null) {
                CamelContext camel = getEndpoint().getCamelContext();
                // this consumer is not told its route, whose consumer is platform-http's own, delegating to this one
                RouteDefinition definition = camel.getRoutes().stream().filter(route -> route.getEndpoint() == getEndpoint())
                        .findFirst().map(route -> ((ModelCamelContext) camel).getRouteDefinition(route.getRouteId()))
                        .orElse(null);
                if (definition == null) {
                    return false;   // not started yet: asked again
                }
                known = definition.getTemplateParameters() != null
                        && definition.getTemplateParameters().containsKey(ENTRY_API_PARAMETER);
                entry = known;
            }
            return known;
        }

        /**
         * On a request thread, or on the event loop that read the request ({@link #onEventLoop}): the route runs here
         * until it waits for something asynchronously (the provider call), and this thread goes back to its work; the
         * thread that resumes the route answers.
         */
        private void route(Exchange exchange, RoutingContext request, Context eventLoop) {
            try {
                createUoW(exchange);
            } catch (Exception e) {
                eventLoop.runOnContext(v -> failed(exchange, request, e));
                return;
            }
            try {
                getAsyncProcessor().process(exchange, doneSync -> answer(exchange, request, eventLoop));
            } catch (RuntimeException e) {
                exchange.setException(e);
                answer(exchange, request, eventLoop);
            }
        }

        /**
         * On the thread that ends the route: the write itself goes to the event loop (Vert.x does that). A plain answer
         * is written by {@link AnswerWriter}, whose outcome platform-http does not wait for either; the others by
         * platform-http's own.
         */
        @SuppressWarnings("unchecked")
        private void answer(Exchange exchange, RoutingContext request, Context eventLoop) {
            Future<Void> written = null;
            try {
                if (!AnswerWriter.write(request, exchange, getEndpoint().getHeaderFilterStrategy())) {
                    written = (Future<Void>) WRITE_RESPONSE.invokeExact(request, exchange,
                            getEndpoint().getHeaderFilterStrategy(), getEndpoint().isMuteException());
                }
            } catch (Throwable e) {
                eventLoop.runOnContext(v -> failed(exchange, request, e));
                return;
            }
            if (written == null) {
                completed(exchange);
                return;
            }
            written.onComplete(done -> {
                if (done.succeeded()) {
                    completed(exchange);
                } else {
                    eventLoop.runOnContext(v -> failed(exchange, request, done.cause()));
                }
            });
        }

        /** As platform-http's consumer ends a request it could not answer. */
        private void failed(Exchange exchange, RoutingContext request, Throwable failure) {
            getExceptionHandler().handleException("Failed handling platform-http endpoint " + getEndpoint().getPath(),
                    failure);
            request.fail(failure);
            if (getEndpoint().isHandleWriteResponseError() && failure != null) {
                Exception existing = exchange.getException();
                if (existing != null) {
                    failure.addSuppressed(existing);
                }
                exchange.setProperty(Exchange.EXCEPTION_CAUGHT, failure);
                exchange.setException(failure);
            }
            completed(exchange);
        }

        private void completed(Exchange exchange) {
            doneUoW(exchange);
            releaseExchange(exchange, false);
        }

        /** A form's fields, which platform-http copies into headers (with its body handler on). */
        private boolean formFields(RoutingContext request) {
            if (!getEndpoint().isUseBodyHandler()) {
                return false;
            }
            String type = request.parsedHeaders().contentType().value();
            return type != null && (type.regionMatches(true, 0, "multipart/form-data", 0, 19)
                    || type.regionMatches(true, 0, "application/x-www-form-urlencoded", 0, 33));
        }
    }
}
