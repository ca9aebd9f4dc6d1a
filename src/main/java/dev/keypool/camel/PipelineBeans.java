package dev.keypool.camel;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.admin.HeapWatch;
import dev.keypool.camel.pipeline.Admission;
import dev.keypool.camel.pipeline.AttemptOutcomes;
import dev.keypool.camel.pipeline.CapacityWait;
import dev.keypool.camel.pipeline.ChannelOutcomes;
import dev.keypool.camel.pipeline.ChannelRouter;
import dev.keypool.camel.pipeline.GatewayResponses;
import dev.keypool.camel.pipeline.KeySelector;
import dev.keypool.camel.pipeline.ModelCatalog;
import dev.keypool.camel.pipeline.RequestLog;
import dev.keypool.camel.pipeline.RequestPlanner;
import dev.keypool.camel.pipeline.StreamRelay;
import dev.keypool.camel.pipeline.TenantGate;
import dev.keypool.camel.pipeline.UpstreamResponses;
import dev.keypool.config.QueueConfig;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.HeapPressure;
import dev.keypool.gateway.InFlightLimit;
import dev.keypool.gateway.StreamLimits;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.quota.CapacityQueue;
import dev.keypool.quota.TokenEstimator;
import dev.keypool.routing.ModelSwitches;
import dev.keypool.tenant.Tenants;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.Registry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The beans the request routes call (routes/gateway.camel.yaml, channel, upstream): admission, the plan, the fallback
 * walk, the attempt and its outcomes, the answer.
 *
 * @param capacityQueue the requests waiting for quota room
 */
record PipelineBeans(CapacityQueue capacityQueue, GatewayResponses gatewayResponses, TokenEstimator tokenEstimator) {

    private static final Logger LOG = LoggerFactory.getLogger(PipelineBeans.class);

    static PipelineBeans bind(CamelContext context, int requestsHeld, Channels all, Tenants tenants, QueueConfig queue,
            RequestLog requestLog, GatewayMetrics metrics, ObjectMapper mapper, Clock clock, RoutingBeans routing) {
        Registry registry = context.getRegistry();
        registry.bind("admission", new Admission(inFlightLimit(context, requestsHeld)));
        TokenEstimator tokenEstimator = new TokenEstimator();
        registry.bind("tokenEstimator", tokenEstimator);
        registry.bind("requestPlanner", new RequestPlanner(all, mapper, Wiring.longSetting(context, "keypool.max-body-bytes"),
                Wiring.longSetting(context, "keypool.max-audio-body-bytes"), tokenEstimator, routing.groups(),
                routing.routing()));
        registry.bind("tenantGate", new TenantGate(tenants));
        registry.bind("channelRouter", new ChannelRouter(new ModelSwitches(Duration.ofMinutes(1), clock)));
        registry.bind("channelOutcomes", new ChannelOutcomes());
        CapacityQueue capacityQueue = new CapacityQueue(queue.maxSize(), clock);
        registry.bind("keySelector", new KeySelector(capacityQueue));
        AttemptOutcomes attemptOutcomes = new AttemptOutcomes(clock);
        registry.bind("attemptRateLimited", attemptOutcomes.rateLimited());
        registry.bind("attemptKeyRejected", attemptOutcomes.keyRejected());
        registry.bind("attemptFailed", attemptOutcomes.upstreamFailed());
        registry.bind("attemptRefused", attemptOutcomes.refused());
        registry.bind("attemptGatewayFailed", attemptOutcomes.gatewayFailed());
        registry.bind("attemptClientError", attemptOutcomes.clientError());
        registry.bind("upstreamResponses", new UpstreamResponses(mapper));
        registry.bind("streamRelay", new StreamRelay(mapper, tokenEstimator, new StreamLimits(
                Wiring.intSetting(context, "keypool.max-sse-event-bytes"),
                Duration.ofSeconds(Wiring.longSetting(context, "keypool.max-stream-seconds"))), clock,
                context.getRegistry().lookupByNameAndType(UpstreamBeans.ANSWER_THREADS, Executor.class)));
        registry.bind("capacityWait", new CapacityWait(capacityQueue, queue.maxWait(), clock, metrics));
        metrics.watch(all, capacityQueue);
        GatewayResponses gatewayResponses = new GatewayResponses(mapper, clock, metrics, requestLog);
        registry.bind("gatewayResponses", gatewayResponses);
        registry.bind("modelCatalog", new ModelCatalog(all, mapper, routing.groups()));
        return new PipelineBeans(capacityQueue, gatewayResponses, tokenEstimator);
    }

    /** Requests in flight bounded by count ({@code keypool.max-in-flight}) and by heap (docs/architecture.md, "Back-pressure"). */
    private static InFlightLimit inFlightLimit(CamelContext context, int requestsHeld) {
        int maxInFlight = Wiring.optionalSetting(context, "keypool.max-in-flight").map(Integer::parseInt)
                .orElseGet(() -> InFlightLimit.sizedFromHeap(Runtime.getRuntime().maxMemory()));
        if (requestsHeld < maxInFlight) {
            // on platform threads a request holds its worker until it is answered: one more would wait in Vert.x's
            // queue for a worker, unbounded; refused here, it takes a spare worker for a moment and gets 503 at once
            LOG.info("Platform threads: one Vert.x worker per request in flight, {} (keypool.worker-threads)", requestsHeld);
            maxInFlight = requestsHeld;
        }
        LOG.info("At most {} requests in flight (keypool.max-in-flight), then 503 overloaded", maxInFlight);
        InFlightLimit inFlight = new InFlightLimit(maxInFlight,
                new HeapPressure(Double.parseDouble(Wiring.setting(context, "keypool.heap-limit"))));
        Wiring.addService(context, new HeapWatch(inFlight));
        return inFlight;
    }
}
