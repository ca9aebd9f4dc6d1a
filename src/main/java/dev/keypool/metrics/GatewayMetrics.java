package dev.keypool.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.keypool.breaker.BreakerState;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.ChannelMeters;
import dev.keypool.gateway.Channels;
import dev.keypool.pool.ApiKey;
import dev.keypool.quota.CapacityQueue;
import dev.keypool.quota.KeyQuota;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * The KeyPool families of design §10, on the one Micrometer registry behind {@code /observe/metrics}. Label values come
 * from the configuration only, so their number is bounded: channel names, model names a channel lists (any other
 * model is {@value #OTHER}), key fingerprints, tenant names, outcome codes of the gateway. Micrometer adds the
 * Prometheus suffixes: a counter {@code keypool_requests} is scraped as {@code keypool_requests_total}, a timer
 * {@code keypool_upstream} as the histogram {@code keypool_upstream_seconds}.
 */
public final class GatewayMetrics {

    /** The model label of a model no channel lists by name (a {@code *} channel serves any name a client sends). */
    public static final String OTHER = "other";
    /** The channel or model label of a request that never got that far (a bad body, a full gateway). */
    public static final String NONE = "none";

    /** Outcome of a request answered by a provider with 2xx. */
    public static final String SUCCESS = "success";
    /** Outcome of a request whose provider's 4xx was passed back to the client. */
    public static final String CLIENT_ERROR = "client_error";
    /** Outcome of a stream that broke after its first event. */
    public static final String STREAM_BROKEN = "stream_broken";

    private final MeterRegistry registry;
    /** Without them ({@code keypool.metrics.tenant-labels=false}) the series say nothing of who the clients are. */
    private final boolean tenantLabels;
    private final MultiGauge keyStates;
    private final MultiGauge quotaRatios;
    private final MultiGauge breakerStates;
    private final Timer queueWait;
    private volatile Channels channels;
    /** The value functions of the rows registered last: held here, so that nothing collects them between scrapes. */
    private List<Supplier<Number>> rowValues = List.of();
    /**
     * The counters of {@code keypool_requests} by their labels, found here rather than built and looked up in the
     * registry on every request (a builder, its tags sorted, a meter id and the registry's map, per request and series).
     */
    private final Map<RequestSeries, Counter> requests = new ConcurrentHashMap<>();

    /** The labels of one {@code keypool_requests} series; {@code tenant} is empty without tenant labels. */
    private record RequestSeries(String channel, String model, String tenant, String outcome) {
    }

    /** The token and cost counters of one channel and tenant. */
    private record AnsweredSeries(Counter prompt, Counter completion, Counter cost) {
    }

    public GatewayMetrics(MeterRegistry registry) {
        this(registry, true);
    }

    /** @param tenantLabels whether the request, token and cost series carry a {@code tenant} label */
    public GatewayMetrics(MeterRegistry registry, boolean tenantLabels) {
        this.registry = registry;
        this.tenantLabels = tenantLabels;
        keyStates = MultiGauge.builder("keypool_key_state")
                .description("Key state: 0 active, 1 cooling, 2 disabled").register(registry);
        quotaRatios = MultiGauge.builder("keypool_key_quota_ratio")
                .description("Share of a key's quota window in use (used / limit)").register(registry);
        breakerStates = MultiGauge.builder("keypool_breaker_state")
                .description("Channel breaker: 0 closed, 1 open, 2 half-open").register(registry);
        // there from the start, so that a scrape shows the line has never been used rather than nothing
        queueWait = Timer.builder("keypool_queue_wait").description("Time requests waited in line for quota room")
                .register(registry);
    }

    /**
     * The time this instance went on alone while it shares state through Redis: {@code keypool_redis_alone_seconds_total}
     * (every stretch so far, the current one included) and {@code keypool_redis_connected} (1 shared, 0 alone).
     */
    public void sharedState(Supplier<Duration> aloneInTotal, Supplier<Duration> aloneNow) {
        FunctionCounter.builder("keypool_redis_alone_seconds", aloneInTotal, total -> total.get().toNanos() / 1e9)
                .description("Time this instance went on alone, Redis unreachable, since it started").register(registry);
        Gauge.builder("keypool_redis_connected", aloneNow, now -> now.get().isZero() ? 1 : 0)
                .description("1 while this instance shares state through Redis, 0 while it goes on alone").register(registry);
    }

    /** The meters of one channel's upstream calls, for its {@link Channel}. */
    public ChannelMeters channel(String channel) {
        Timer upstream = Timer.builder("keypool_upstream").description("Upstream call time, per attempt")
                .tag("channel", channel).publishPercentileHistogram().register(registry);
        Timer ttfb = Timer.builder("keypool_ttfb").description("Time to a stream's first event from the provider")
                .tag("channel", channel).publishPercentileHistogram().register(registry);
        // by tenant ("" without tenant labels): registered once each, as the request counters are
        Map<String, AnsweredSeries> answered = new ConcurrentHashMap<>();
        return new ChannelMeters() {
            @Override
            public void upstreamCall(Duration elapsed) {
                upstream.record(elapsed);
            }

            @Override
            public void firstByte(Duration timeToFirstByte) {
                ttfb.record(timeToFirstByte);
            }

            @Override
            public void answered(String tenant, long promptTokens, long completionTokens, double costUsd) {
                String label = tenantLabels ? tenant : "";
                AnsweredSeries series = answered.get(label);
                if (series == null) {
                    series = answered.computeIfAbsent(label, t -> new AnsweredSeries(tokens(channel, t, "prompt"),
                            tokens(channel, t, "completion"),
                            Counter.builder("keypool_cost_usd").description("What answered calls cost, by the channel's pricing")
                                    .tags("channel", channel).tags(tenant(t)).register(registry)));
                }
                series.prompt().increment(Math.max(0, promptTokens));
                series.completion().increment(Math.max(0, completionTokens));
                series.cost().increment(Math.max(0, costUsd));
            }
        };
    }

    private Counter tokens(String channel, String tenant, String kind) {
        return Counter.builder("keypool_tokens").description("Tokens of answered calls, as the provider reported them")
                .tags("channel", channel, "kind", kind).tags(tenant(tenant)).register(registry);
    }

    /** One request answered, by the channel that served it (or its primary, or {@value #NONE}) and how it ended. */
    public void request(String channel, String model, String tenant, String outcome) {
        RequestSeries series = new RequestSeries(channel, modelLabel(model), tenantLabels ? tenant : "", outcome);
        Counter counter = requests.get(series);
        if (counter == null) {
            counter = requests.computeIfAbsent(series, s -> Counter.builder("keypool_requests")
                    .description("Requests answered, by outcome")
                    .tags("channel", s.channel(), "model", s.model(), "outcome", s.outcome()).tags(tenant(s.tenant()))
                    .register(registry));
        }
        counter.increment();
    }

    private Tags tenant(String tenant) {
        return tenantLabels ? Tags.of("tenant", tenant) : Tags.empty();
    }

    /** A request served by a channel of its fallback chain. */
    public void fellBack(String from, String to, int level) {
        Counter.builder("keypool_fallbacks").description("Requests served by a fallback channel")
                .tags("from", from, "to", to, "level", String.valueOf(level)).register(registry).increment();
    }

    /** Request-log rows lost: its queue was full, or the database refused their batch (0 registers the counter). */
    public void requestLogDropped(long rows) {
        Counter.builder("keypool_request_log_dropped").description("Request-log rows lost: queue full or database down")
                .register(registry).increment(rows);
    }

    /** A request's wait in line for quota room, however it ended. */
    public void queueWaited(Duration waited) {
        queueWait.record(waited);
    }

    /**
     * The gauges of the channels' keys and breakers and of the waiting line; call {@link #refresh} when the keys or
     * their limits change.
     */
    public synchronized void watch(Channels watched, CapacityQueue queue) {
        this.channels = watched;
        Gauge.builder("keypool_queue_waiting", queue, CapacityQueue::waiting)
                .description("Requests waiting in line for quota room").strongReference(true).register(registry);
        refresh();
    }

    /** One row per key, key window and channel as the configuration has them now (after a reload, a PATCH). */
    public synchronized void refresh() {
        List<Supplier<Number>> values = new ArrayList<>();
        List<MultiGauge.Row<?>> keys = new ArrayList<>();
        List<MultiGauge.Row<?>> ratios = new ArrayList<>();
        List<MultiGauge.Row<?>> breakers = new ArrayList<>();
        for (Channel channel : channels.all()) {
            String name = channel.name();
            for (ApiKey key : channel.pool().keys()) {
                String fingerprint = key.fingerprint();
                Supplier<Number> state = () -> current(name, fingerprint)
                        .map(c -> (Number) c.pool().stateOf(c.pool().find(fingerprint).orElseThrow()).ordinal()).orElse(Double.NaN);
                values.add(state);
                keys.add(MultiGauge.Row.of(Tags.of("channel", name, "key", fingerprint), state));
                for (KeyQuota.Use use : channel.pool().quotaOf(key).use()) {
                    KeyQuota.Window window = use.window();
                    Supplier<Number> ratio = () -> current(name, fingerprint)
                            .flatMap(c -> c.pool().quotaOf(c.pool().find(fingerprint).orElseThrow()).use().stream()
                                    .filter(u -> u.window() == window).findFirst())
                            .map(u -> (Number) u.ratio()).orElse(Double.NaN);
                    values.add(ratio);
                    ratios.add(MultiGauge.Row.of(Tags.of("channel", name, "key", fingerprint, "window", window.configName()), ratio));
                }
            }
            Supplier<Number> breaker = () -> channels.get(name).map(c -> (Number) breakerValue(c.breaker().state())).orElse(Double.NaN);
            values.add(breaker);
            breakers.add(MultiGauge.Row.of(Tags.of("channel", name), breaker));
        }
        rowValues = values;
        keyStates.register(keys, true);
        quotaRatios.register(ratios, true);
        breakerStates.register(breakers, true);
    }

    /** resilience4j's numbering, which dashboards for it already read: 0 closed, 1 open, 2 half-open. */
    static int breakerValue(BreakerState state) {
        return switch (state) {
            case CLOSED -> 0;
            case OPEN -> 1;
            case HALF_OPEN -> 2;
        };
    }

    private String modelLabel(String model) {
        if (model == null || NONE.equals(model)) {
            return NONE;
        }
        return channels != null && channels.configured(model) ? model : OTHER;
    }

    /** The channel of that name now, if it still has the key. */
    private Optional<Channel> current(String channel, String fingerprint) {
        return channels.get(channel).filter(c -> c.pool().find(fingerprint).isPresent());
    }
}
