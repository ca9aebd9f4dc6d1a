package dev.keypool.camel.pipeline;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import dev.keypool.breaker.BreakerState;
import dev.keypool.camel.batch.BatchLines;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.quota.CapacityQueue;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wait of the fallback walk (design §6): a request that every channel of its chain held back for quotas or
 * cooling waits in line for room when that room comes within {@code queue.maxWait}, then walks its chain again;
 * otherwise it is answered 429 {@code quota_exhausted} by {@link GatewayResponses}. The waiting is done by
 * {@link CapacityQueue}, on the request's own (virtual) thread. A line of a batch file waits in its batch instead
 * ({@link BatchLines}), which holds no thread.
 */
public final class CapacityWait {

    private static final Logger LOG = LoggerFactory.getLogger(CapacityWait.class);

    /**
     * How long a Kafka batch line may wait for room, when {@code queue.maxWait} is shorter (and not 0): no client
     * waits on it, and a minute window's room comes within 61 s (its one-second buckets). Held back instead, it would
     * run again a second later. A line of a batch file waits nowhere: it goes back to its batch with the soonest room
     * ({@link Exchanges#NOT_BEFORE}), and the batch hands out no line until then (BatchLines), so that a batch whose
     * channel is full holds no batch thread from the other tenants' batches; a batch swept each second instead sent
     * all its remaining lines through the gateway until the minute passed (77,200 such 429s in a 10,000-line batch,
     * bench/batch.sh).
     */
    static final Duration BATCH_MAX_WAIT = Duration.ofSeconds(62);

    private final CapacityQueue queue;
    private final Duration maxWait;
    private final Clock clock;
    private final GatewayMetrics metrics;

    public CapacityWait(CapacityQueue queue, Duration maxWait, Clock clock, GatewayMetrics metrics) {
        this.queue = queue;
        this.maxWait = maxWait;
        this.clock = clock;
        this.metrics = metrics;
    }

    /**
     * At the end of the chain, unless served: ends the walk (kpWalkOver) unless room came in time, when the request
     * walks its chain again.
     */
    public void waitForRoom(Exchange exchange) throws InterruptedException {
        GatewayRequest request = Exchanges.request(exchange);
        // a walk after a wait has taken its room or not: the next in line may go
        queue.dispatched(request);
        exchange.setProperty(Exchanges.WALK_OVER, true);
        if (request.isServed() || !request.heldBackByQuota() || Exchanges.clientGone(exchange)) {
            return;
        }
        if (exchange.getProperty(Exchanges.BATCH_ID) != null) {
            // a line of a batch file: its batch rests until the room comes (429 quota_exhausted now)
            soonestRoom(request).ifPresent(at -> exchange.setProperty(Exchanges.NOT_BEFORE, at));
            return;
        }
        if (maxWait.isZero()) {
            return;
        }
        Duration longest = request.isBatch() && maxWait.compareTo(BATCH_MAX_WAIT) < 0 ? BATCH_MAX_WAIT : maxWait;
        Instant deadline = request.waitDeadline(clock.instant(), longest);
        Optional<Instant> room = soonestRoom(request);
        if (room.isEmpty() || room.get().isAfter(deadline)) {
            return;   // no room in time: 429 with Retry-After to the soonest room
        }
        if (queue.waitingAhead(request.priority()) >= requestRoomBy(request, deadline)) {
            return;   // the room coming in time is already promised to those waiting ahead: 429 now, not at the deadline
        }
        long started = System.nanoTime();
        CapacityQueue.Outcome outcome = queue.await(request, request.priority(), () -> soonestRoom(request).filter(at -> !at.isAfter(clock.instant()))
                .isPresent(), deadline);
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        metrics.queueWaited(waited);
        LOG.debug("Request for model '{}' waited {} ms for quota room: {} ({} waiting)", request.model(),
                waited.toMillis(), outcome, queue.waiting());
        if (outcome == CapacityQueue.Outcome.ROOM) {
            request.walkAgain();
            exchange.setProperty(Exchanges.WALK_OVER, false);
        }
    }

    /** Timer of the line: room may have come. */
    public void wake() {
        queue.wake();
    }

    public CapacityQueue queue() {
        return queue;
    }

    /** How many requests the chain's channels that are not OPEN can take until {@code deadline}. */
    private static long requestRoomBy(GatewayRequest request, Instant deadline) {
        long room = 0;
        for (Channel channel : request.chain()) {
            if (channel.breaker().state() != BreakerState.OPEN) {
                long channelRoom = channel.pool().capacity().requestRoomBy(request.keyScope(), deadline);
                if (channelRoom == Long.MAX_VALUE) {
                    return Long.MAX_VALUE;
                }
                room += channelRoom;
            }
        }
        return room;
    }

    /** The soonest moment a channel of the chain that is not OPEN has a key with room for this request. */
    private Optional<Instant> soonestRoom(GatewayRequest request) {
        return request.chain().stream()
                .filter(channel -> channel.breaker().state() != BreakerState.OPEN)
                .map(Channel::pool)
                .map(pool -> request.isBatch() ? pool.capacity().capacityBelowSoftLimitAt(request.keyScope(), request.estimatedTokens())
                        : pool.capacity().capacityAt(request.keyScope(), request.estimatedTokens()))
                .flatMap(Optional::stream)
                .min(Instant::compareTo);
    }
}
