package dev.keypool.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.keypool.breaker.BreakerState;
import dev.keypool.breaker.ChannelBreaker;
import dev.keypool.gateway.Channels;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyState;
import dev.keypool.testing.RoutesOnDisk;
import org.apache.camel.Consumer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.support.RouteWatcherReloadStrategy;
import org.apache.camel.support.service.ServiceHelper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Live route reload ({@code camel.main.routes-reload-enabled=true}) under 32 connections of load: an operator's edit of
 * gateway.camel.yaml (one more response header) is answered within 5 s of the file's change, no request fails meanwhile
 * (a request that comes while Camel swaps the entry routes waits for the new one: UnmatchedRequests), and the keys'
 * states, quota counts and the breakers are the same objects with the same state afterwards. A request on its way to a
 * route whose consumer the reload suspends waits for it too.
 */
class RouteReloadUnderLoadTest extends GatewayTestSupport {

    private static final int CONNECTIONS = 32;

    private final RoutesOnDisk routes = RoutesOnDisk.copyOfRoutes();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [m]
                    keys:
                      - key: sk-main-429
                      - key: sk-main-1
                        rpm: 1000000
                      - key: sk-main-2
                        rpm: 1000000
                  - name: spare
                    baseUrl: UPSTREAM
                    models: [s]
                    keys:
                      - key: sk-spare-1
                """;
    }

    @Override
    protected Properties overrideProperties() {
        return routes.watchedBy(super.overrideProperties());
    }

    @Test
    void should_apply_an_edited_gateway_route_within_5_s_under_load_without_a_failed_request_or_lost_state() throws Exception {
        upstream.answer("sk-main-429", 429, "3600", null).delayAll(20);
        Channels channels = context.getRegistry().lookupByNameAndType("channels", Channels.class);
        ApiKey rateLimited = channel("main").pool().keys().get(0);
        ChannelBreaker spareBreaker = context.getRegistry().lookupByNameAndType("breaker-spare", ChannelBreaker.class);
        channel("spare").breaker().forceOpen("held open across the reload");

        ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService clients = Executors.newFixedThreadPool(CONNECTIONS);
        List<Future<?>> load = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            load.add(clients.submit(() -> {
                while (running.get()) {
                    answers.add(send());
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> answers.size() >= 200);
        assertThat(channel("main").pool().stateOf(rateLimited)).isEqualTo(KeyState.COOLING);
        // the first requests, in flight together, may all have picked it before it cooled
        int rateLimitedCalls = upstream.hits("sk-main-429");

        RouteWatcherReloadStrategy watcher = context.hasService(RouteWatcherReloadStrategy.class);
        int reloads = watcher.getReloadCounter();
        long edited = editGatewayRoute();
        await().atMost(Duration.ofSeconds(10)).until(() -> answers.stream().anyMatch(Answer::reloaded));
        long firstReloaded = answers.stream().filter(Answer::reloaded).mapToLong(Answer::endedAt).min().orElseThrow();
        // load goes on for a second with the new route
        await().atMost(Duration.ofSeconds(10)).until(() -> answers.stream().anyMatch(a -> a.startedAt() > firstReloaded + 1000));
        running.set(false);
        for (Future<?> client : load) {
            client.get();
        }
        clients.shutdown();

        assertThat(watcher.getReloadCounter()).as("Camel's reload of the edited file").isGreaterThan(reloads);
        assertThat(firstReloaded - edited).as("ms from the file's change to the first answer of the new route").isLessThan(5000);
        assertThat(answers).as("every request answered 200 across the reload")
                .allSatisfy(a -> assertThat(a.status()).as(a.body()).isEqualTo(200));
        assertThat(answers.stream().filter(a -> a.startedAt() > firstReloaded + 300))
                .as("requests sent after the swap all run the new route").isNotEmpty().allMatch(Answer::reloaded);

        // the state lives in beans, not in routes: same objects, same states, counts going on
        assertThat(context.getRegistry().lookupByNameAndType("channels", Channels.class)).isSameAs(channels);
        assertThat(channel("main").pool().stateOf(rateLimited)).isEqualTo(KeyState.COOLING);
        assertThat(upstream.hits("sk-main-429")).as("the cooled key was not tried again after the reload").isEqualTo(rateLimitedCalls);
        long served = channel("main").pool().keys().stream().mapToLong(k -> k.stats().successCount()).sum();
        assertThat(served).as("successes counted by the keys, before and after the reload").isEqualTo(answers.size());
        long quotaUsed = channel("main").pool().keys().stream().skip(1)
                .mapToLong(k -> channel("main").pool().quotaOf(k).use().get(0).used()).sum();
        assertThat(quotaUsed).as("requests in the keys' rpm windows").isEqualTo(answers.size());
        assertThat(context.getRegistry().lookupByNameAndType("breaker-spare", ChannelBreaker.class)).isSameAs(spareBreaker);
        assertThat(channel("spare").breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(spareBreaker.state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void should_hold_a_request_whose_route_is_suspended_after_the_gate_let_it_through() throws Exception {
        Consumer consumer = context.getRoute("models").getConsumer();
        AtomicBoolean suspended = new AtomicBoolean();
        AtomicLong resumedAt = new AtomicLong();
        // the reload's suspension, at the worst moment: after ReloadGate saw the consumer started, before the
        // consumer took the request; resumed 300 ms later, as by a reload that is done
        for (VertxPlatformHttpRouter router : context.getRegistry().findByType(VertxPlatformHttpRouter.class)) {
            router.route("/v1/models").order(Integer.MIN_VALUE + 1).handler(request -> {
                if (suspended.compareAndSet(false, true)) {
                    ServiceHelper.suspendService(consumer);
                    request.vertx().setTimer(300, id -> {
                        resumedAt.set(System.currentTimeMillis());
                        ServiceHelper.resumeService(consumer);
                    });
                }
                request.next();
            });
        }

        HttpResponse<String> models = get("/v1/models");

        assertThat(suspended).isTrue();
        assertThat(models.statusCode()).as(models.body()).isEqualTo(200);
        assertThat(models.body()).contains("\"m\"");
        assertThat(resumedAt.get()).as("answered once the route was back").isPositive();
    }

    private record Answer(int status, boolean reloaded, long startedAt, long endedAt, String body) {
    }

    private Answer send() throws Exception {
        long started = System.currentTimeMillis();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("m"))).build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.headers().firstValue("X-Reloaded").isPresent(), started,
                System.currentTimeMillis(), r.body());
    }

    /** The operator's edit, written in one atomic rename; returns when the file changed. */
    private long editGatewayRoute() throws IOException {
        // after the step that answers every request the walk served, in the fallback walk's tail
        routes.insertAfter("gateway.camel.yaml", """
                                - bean:
                                    ref: gatewayResponses
                                    method: finish
                """, """
                                - setHeader:
                                    name: X-Reloaded
                                    constant: "yes"
                """);
        return System.currentTimeMillis();
    }
}
