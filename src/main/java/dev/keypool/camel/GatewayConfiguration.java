package dev.keypool.camel;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.admin.RuntimeChanges;
import dev.keypool.admin.RuntimeChangesFile;
import dev.keypool.admin.RuntimeChangesStore;
import dev.keypool.breaker.BreakerPeers;
import dev.keypool.config.ChannelConfig;
import dev.keypool.config.ConfigLoader;
import dev.keypool.config.GatewayConfig;
import dev.keypool.config.TenantConfig;
import dev.keypool.events.EventLog;
import dev.keypool.events.StateListeners;
import dev.keypool.fault.Faults;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.ChannelAssembly;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.HeapPressure;
import dev.keypool.gateway.InFlightLimit;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.pool.ApiKey;
import dev.keypool.probe.ProbeSchedule;
import dev.keypool.quota.CapacityQueue;
import dev.keypool.quota.QuotaLedger;
import dev.keypool.quota.QuotaStateFile;
import dev.keypool.quota.TokenEstimator;
import dev.keypool.shared.RedisBreakers;
import dev.keypool.shared.RedisLink;
import dev.keypool.shared.RedisQuotaLedger;
import dev.keypool.shared.RedisRuntimeChanges;
import dev.keypool.shared.RedisTenantLimits;
import dev.keypool.shared.SharedKeyStates;
import dev.keypool.shared.SharedState;
import dev.keypool.tenant.LocalTenantLimits;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.TenantLimits;
import dev.keypool.tenant.Tenants;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.ext.web.client.WebClientOptions;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.component.micrometer.MicrometerUtils;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyConfiguration;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyFactory;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Configuration;
import org.apache.camel.StartupListener;
import org.apache.camel.component.platform.http.PlatformHttpConstants;
import org.apache.camel.component.platform.http.spi.PlatformHttpEngine;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.spi.ProcessorFactory;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.service.ServiceSupport;
import org.apache.camel.util.function.ThrowingRunnable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds KeyPool from keypool.yaml and binds the beans the YAML routes call. Beans that depend on each other
 * are bound here in order, since Camel runs {@code @BindToRegistry} methods in no defined order. A {@link Clock}
 * bean bound before startup (tests) replaces the system clock everywhere. Settings come from
 * application.properties, the one place their defaults are written.
 */
@Configuration
public class GatewayConfiguration implements CamelConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayConfiguration.class);

    private final boolean http;

    /** The service: KeyPool answers HTTP on Camel Main's server. */
    public GatewayConfiguration() {
        this(true);
    }

    /**
     * @param http whether KeyPool's HTTP entry routes run in this context; the keypool component without
     *             {@code httpEnabled} binds the same beans but leaves the host's Vert.x and HTTP server alone
     */
    public GatewayConfiguration(boolean http) {
        this.http = http;
    }

    @Override
    public void configure(CamelContext context) {
        PropertiesComponent properties = context.getPropertiesComponent();
        Registry registry = context.getRegistry();
        Function<String, String> settings = name -> properties.resolveProperty(name).orElse(null);
        Path file = ConfigLoader.configuredPath(settings, System::getenv);
        GatewayConfig config = new ConfigLoader(ConfigLoader.variables(settings, System::getenv)).load(file);
        Clock clock = registry.findSingleByType(Clock.class);
        if (clock == null) {
            clock = Clock.systemUTC();
        }
        ObjectMapper mapper = new ObjectMapper();
        // requests the HTTP server's workers can be working on at once (RequestThreads): a bound of the in-flight limit
        int requestsHeld = Integer.MAX_VALUE;
        if (http) {
            int workers = Integer.parseInt(required(properties, "keypool.worker-threads"));
            requestsHeld = RequestThreads.requestsHeld(workers);
            // one Vert.x for the HTTP server (platform-http) and the provider calls (vertx-http): both take the
            // registry's, so the calls share the server's epoll event loops; closed when the context stops
            int spare = Integer.parseInt(required(properties, "keypool.spare-worker-threads"));
            Vertx vertx = Vertx.vertx(vertxOptions(workers + spare));
            registry.bind("vertx", vertx);
            addService(context, new OnStop(
                    () -> vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS)));
        }
        // off unless asked, as in Camel: an application embedding KeyPool may have no meter registry
        if (properties.resolveProperty("camel.metrics.enabled").map(Boolean::parseBoolean).orElse(false)) {
            context.addRoutePolicyFactory(routeTimers(context));
        }

        // the Redis other gateway instances share state through (design §11), connected at the end of this method once
        // every shared store has said what it writes back; without redis: each store is the local one
        RedisLink redis = config.redis() == null ? null : new RedisLink(config.redis());
        registry.bind("sharedState", redis == null ? SharedState.LOCAL : redis);
        if (redis != null) {
            registry.bind("redisLink", redis);
            addService(context, new OnStop(redis::close));
        }

        // every key and breaker state change, for whoever listens (admin events, metrics, shared state)
        StateListeners stateListeners = new StateListeners();
        registry.bind("stateListeners", stateListeners);
        // the last 1,000 of them for GET /admin/events and its stream
        EventLog eventLog = new EventLog(1000);
        stateListeners.add(eventLog);
        registry.bind("eventLog", eventLog);
        // design §10 on the registry camel-micrometer-prometheus serves at /observe/metrics (it binds none when one is there)
        GatewayMetrics metrics = new GatewayMetrics(metricsRegistry(registry),
                Boolean.parseBoolean(required(properties, "keypool.metrics.tenant-labels")));
        registry.bind("gatewayMetrics", metrics);
        // with Redis, each breaker announces its decisions to the other instances' and shares their probe budget, and
        // each key's quota reservation is also taken in the count the instances share (design §11)
        BreakerPeers breakerPeers = redis == null ? BreakerPeers.LOCAL : new RedisBreakers(redis);
        ChannelAssembly assembly = new ChannelAssembly(clock, stateListeners, metrics::channel, breakerPeers,
                redis == null ? QuotaLedger.Factory.LOCAL : RedisQuotaLedger.on(redis));
        List<Channel> channels = new ArrayList<>();
        for (ChannelConfig c : config.channels()) {
            Channel channel = assembly.build(c);
            // the channel route's circuitBreaker step decides with this breaker (its configuration: breaker-<channel>)
            registry.bind("breaker-" + c.name(), channel.breaker());
            channels.add(channel);
            if (c.baseUrl().contains("/demo/v1")) {
                LOG.info("Channel [{}] calls the built-in demo upstream SIMULATOR (canned answers, not a real LLM)", c.name());
            }
            List<ApiKey> keys = channel.pool().keys();
            LOG.info("Channel [{}]: {} keys ({}), models {}, fallback {}", c.name(), keys.size(),
                    keys.stream().map(ApiKey::fingerprint).collect(Collectors.joining(", ")), c.models(), c.fallback());
        }
        Channels all = new Channels(channels);
        // operators' changes made through the admin API before the last stop, laid over the file
        Path stateDir = Path.of(required(properties, "state.dir"));
        RuntimeChangesFile changesFile = new RuntimeChangesFile(stateDir);
        RuntimeChanges runtimeChanges = changesFile.read();
        all.all().forEach(runtimeChanges::applyTo);
        // with Redis, the changes made through any instance's admin API reach the others too
        RuntimeChangesStore changesStore = redis == null ? changesFile
                : new RedisRuntimeChanges(redis, changesFile, runtimeChanges, all);
        long maxBody = Long.parseLong(required(properties, "keypool.max-body-bytes"));

        int maxInFlight = properties.resolveProperty("keypool.max-in-flight").filter(v -> !v.isBlank()).map(Integer::parseInt)
                .orElseGet(() -> InFlightLimit.sizedFromHeap(Runtime.getRuntime().maxMemory()));
        if (requestsHeld < maxInFlight) {
            // on platform threads a request holds its worker until it is answered: one more would wait in Vert.x's
            // queue for a worker, unbounded; refused here, it takes a spare worker for a moment and gets 503 at once
            LOG.info("Platform threads: one Vert.x worker per request in flight, {} (keypool.worker-threads)", requestsHeld);
            maxInFlight = requestsHeld;
        }
        LOG.info("At most {} requests in flight (keypool.max-in-flight), then 503 overloaded", maxInFlight);

        InFlightLimit inFlight = new InFlightLimit(maxInFlight,
                new HeapPressure(Double.parseDouble(required(properties, "keypool.heap-limit"))));
        addService(context, new HeapWatch(inFlight));
        registry.bind("admission", new Admission(inFlight));
        // camel-http ignores its own pool settings once it is given a connection manager: this one reads them
        int connectionsPerProvider = Integer.parseInt(required(properties, "camel.component.http.connections-per-route"));
        registry.bind("upstreamConnections", UpstreamConnections.pool(connectionsPerProvider));
        // the provider calls that are not streams (routes/upstream.camel.yaml), and the channel routes' circuitBreaker
        // that waits for them without holding a thread
        context.addComponent("vertx-http", upstreamHttp(context, connectionsPerProvider,
                Long.parseLong(required(properties, "keypool.max-answer-bytes"))));
        context.getCamelContextExtension().addContextPlugin(ProcessorFactory.class, new ChannelBreakerFactory());
        registry.bind("channels", all);
        TokenEstimator tokenEstimator = new TokenEstimator();
        registry.bind("requestPlanner", new RequestPlanner(all, mapper, maxBody,
                Long.parseLong(required(properties, "keypool.max-audio-body-bytes")), tokenEstimator));
        // unset: a tenant without maxInFlight of its own has no limit on its requests in flight
        Integer tenantMaxInFlight = properties.resolveProperty("keypool.tenant-max-in-flight").filter(v -> !v.isBlank())
                .map(Integer::valueOf).orElse(null);
        Tenants tenants = tenants(config.tenants(), redis, clock, tenantMaxInFlight);
        registry.bind("tenantGate", new TenantGate(tenants));
        // batches, async tasks and the queue consumers (routes/batch.camel.yaml)
        BatchBeans.bind(context, tenants, mapper, clock);
        registry.bind("channelRouter", new ChannelRouter());
        registry.bind("channelOutcomes", new ChannelOutcomes());
        CapacityQueue capacityQueue = new CapacityQueue(config.queue().maxSize(), clock);
        registry.bind("keySelector", new KeySelector(capacityQueue));
        AttemptOutcomes attemptOutcomes = new AttemptOutcomes(clock);
        registry.bind("attemptRateLimited", attemptOutcomes.rateLimited());
        registry.bind("attemptKeyRejected", attemptOutcomes.keyRejected());
        registry.bind("attemptFailed", attemptOutcomes.upstreamFailed());
        registry.bind("attemptClientError", attemptOutcomes.clientError());
        registry.bind("upstreamResponses", new UpstreamResponses(mapper));
        registry.bind("anthropicHeaders", new AnthropicHeaders());
        registry.bind("streamRelay", new StreamRelay(mapper, tokenEstimator,
                Integer.parseInt(required(properties, "keypool.max-sse-event-bytes")),
                TimeUnit.SECONDS.toNanos(Long.parseLong(required(properties, "keypool.max-stream-seconds")))));
        registry.bind("capacityWait", new CapacityWait(capacityQueue, config.queue().maxWait(), clock, metrics));
        metrics.watch(all, capacityQueue);
        // the control plane's database, and the request log written into it by routes/request-log.camel.yaml
        RequestLog requestLog = DatabaseBeans.bind(context, config, stateDir, clock, metrics);
        GatewayResponses gatewayResponses = new GatewayResponses(mapper, clock, metrics, requestLog);
        registry.bind("gatewayResponses", gatewayResponses);
        if (http) {
            boolean reload = properties.resolveProperty("camel.main.routes-reload-enabled").map(Boolean::parseBoolean).orElse(false);
            if (reload) {
                registry.bind(PlatformHttpConstants.PLATFORM_HTTP_ENGINE_NAME, PlatformHttpEngine.class, new ReloadSafeHttpEngine());
            }
            installRouterHandlers(context, gatewayResponses, reload, RequestEdge.fromSettings(context, gatewayResponses));
            properties.resolveProperty("keypool.metrics.token").filter(token -> !token.isBlank())
                    .ifPresent(token -> MetricsGuard.protect(context, token, gatewayResponses));
        }
        registry.bind("modelCatalog", new ModelCatalog(all, mapper));
        registry.bind("demoUpstream", new DemoUpstream(mapper));
        AdminGuard adminGuard = new AdminGuard(config.admin() == null ? null : config.admin().token());
        registry.bind("adminGuard", adminGuard);
        registry.bind("adminStatus", new AdminStatus(all, capacityQueue, tenants, mapper));
        registry.bind("adminActions", new AdminActions(all, runtimeChanges, changesStore, metrics, mapper));
        registry.bind("adminEvents", new AdminEvents(eventLog, mapper));
        registry.bind("adminDashboard", new AdminDashboard());
        // health probes (routes/probes.camel.yaml) and fault injection (routes/faults.camel.yaml, upstream-attempt)
        ProbeSchedule probeSchedule = new ProbeSchedule(all.all(), clock);
        registry.bind("healthProbes", new HealthProbes(probeSchedule, mapper, clock));
        // provider keys added through the admin API, from the database into their channels' pools
        ProviderKeyBeans.bind(context, all, assembly, clock, metrics, probeSchedule);
        Clock tenantClock = clock;
        registry.bind("configReloader", new ConfigReloader(context, file,
                new ConfigLoader(ConfigLoader.variables(settings, System::getenv)), config, assembly, all, runtimeChanges,
                adminGuard, metrics, probeSchedule, mapper, tenants, changed -> tenants(changed, redis, tenantClock, tenantMaxInFlight)));
        registry.bind("faults", new FaultInjector(new Faults(() -> all.all().stream().collect(Collectors.toMap(Channel::name,
                c -> c.pool().keys().stream().map(ApiKey::fingerprint).collect(Collectors.toSet()))), clock,
                () -> ThreadLocalRandom.current().nextDouble()), mapper));
        // read back now, before any route takes traffic; written by the quota-state timer route and when the context stops
        QuotaStateKeeper quotaState = new QuotaStateKeeper(all, new QuotaStateFile(stateDir));
        registry.bind("quotaState", quotaState);
        addService(context, quotaState);

        if (redis != null) {
            // key states and quota use shared with the other instances: written back and read on every (re)connection
            stateListeners.add(new SharedKeyStates(redis, all, clock));
            RedisQuotaLedger.writeBackOnConnect(redis, all);
            // reads the other instances' state before any route takes traffic; when Redis is not there yet, the
            // shared-state-watch route keeps trying
            redis.check();
        }
        LOG.info("KeyPool configuration {}: {} channels", file, channels.size());
        if (config.tenants().isEmpty()) {
            LOG.warn("No tenants configured: the gateway is open to every client that can reach it");
        } else {
            LOG.info("{} tenants ({}): every API request needs one's token", config.tenants().size(),
                    config.tenants().stream().map(TenantConfig::name).collect(Collectors.joining(", ")));
        }
    }

    /** The tenants of keypool.yaml, with their limits kept in this instance, or shared through {@code redis} when there is one. */
    private static Tenants tenants(List<TenantConfig> configs, RedisLink redis, Clock clock, Integer tenantMaxInFlight) {
        return new Tenants(configs.stream()
                .map(t -> new Tenant(t.name(), t.token(), t.priority(), t.channels(), t.models(), t.borrow(),
                        tenantLimits(t, redis, clock), t.maxInFlight() != null ? t.maxInFlight() : tenantMaxInFlight))
                .toList());
    }

    private static TenantLimits tenantLimits(TenantConfig t, RedisLink redis, Clock clock) {
        int burst = t.bucketSize() == null ? 1 : t.bucketSize();
        return redis == null
                ? new LocalTenantLimits(t.name(), t.rpm(), burst, t.tpm(), t.rpd(), t.budgetDaily(), t.budgetMonthly(), clock)
                : RedisTenantLimits.shared(t.name(), t.rpm(), burst, t.tpm(), t.rpd(), t.budgetDaily(), t.budgetMonthly(),
                        redis, clock);
    }

    /**
     * The registry behind /observe/metrics: camel-micrometer-prometheus's own when it has bound it already, else one
     * bound here under its name, which it then takes instead of making a second.
     */
    private static MeterRegistry metricsRegistry(Registry registry) {
        MeterRegistry meters = MicrometerUtils.getMeterRegistryFromCamelRegistry(registry, MicrometerConstants.METRICS_REGISTRY_NAME);
        if (meters == null) {
            meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            registry.bind(MicrometerConstants.METRICS_REGISTRY_NAME, meters);
        }
        return meters;
    }

    /**
     * Once the HTTP servers are up: bodies bounded before they are read ({@link RequestEdge}), OpenAI-shaped 404/405 for
     * requests no route takes ({@link UnmatchedRequests}), and
     * with live route reload on, requests held while their route is replaced ({@link ReloadGate}).
     */
    private static void installRouterHandlers(CamelContext context, GatewayResponses gatewayResponses, boolean reload,
            RequestEdge edge) {
        addStartupListener(context, new StartupListener() {
            @Override
            public void onCamelContextStarted(CamelContext started, boolean alreadyStarted) {
                // platform-http's router is not there yet
            }

            @Override
            public void onCamelContextFullyStarted(CamelContext started, boolean alreadyStarted) {
                // one router per HTTP server (the API's, and the management one when it has its own port)
                for (VertxPlatformHttpRouter router : started.getRegistry().findByType(VertxPlatformHttpRouter.class)) {
                    UnmatchedRequests.install(router, gatewayResponses);
                    edge.install(router);
                    if (reload) {
                        ReloadGate.install(started, router);
                    }
                }
            }
        });
    }

    /**
     * platform-http-vertx runs each exchange on a Vert.x worker thread and holds it until the route is done,
     * and LLM calls take seconds: the pool must be as large as the concurrency we promise (docs/architecture.md, "Concurrency model").
     */
    private static VertxOptions vertxOptions(int workers) {
        return new VertxOptions()
                .setWorkerPoolSize(workers)
                // epoll where netty-transport-native-epoll loads (Linux x86-64), NIO elsewhere
                .setPreferNativeTransport(true)
                // an LLM call may legitimately hold its worker for minutes: no blocked-thread warnings for that
                .setMaxWorkerExecuteTime(30)
                .setMaxWorkerExecuteTimeUnit(TimeUnit.MINUTES);
    }

    /** vertx-http with one pool of up to {@code connections} per provider, answers handled on a request thread. */
    private static UpstreamHttpComponent upstreamHttp(CamelContext context, int connections, long maxAnswerBytes) {
        UpstreamHttpComponent component = new UpstreamHttpComponent(
                context.getExecutorServiceManager().newCachedThreadPool(context, "UpstreamAnswers"), maxAnswerBytes);
        component.setWebClientOptions(new WebClientOptions()
                .setMaxPoolSize(connections)
                // what camel-http does too (application.properties): no transparent decompression, no user agent
                .setTryUseCompression(false)
                .setUserAgentEnabled(false));
        return component;
    }

    /**
     * Timers for the routes a request enters by (chat-completions, embeddings, …) and for each channel route; not for
     * the internal hops every request crosses (gateway-core, upstream-call, upstream-attempt), nor Camel's
     * context-wide timer, which counts each of those hops as one more exchange. Camel's own route policy
     * ({@code camel.metrics.enable-route-policy}, off in application.properties) times every route twice.
     */
    private static MicrometerRoutePolicyFactory routeTimers(CamelContext context) {
        MicrometerRoutePolicyConfiguration timers = new MicrometerRoutePolicyConfiguration();
        timers.setContextEnabled(false);
        timers.setExcludePattern("gateway-core,fallback-walk,multipart-core,chat-core,messages-core,keypool-component-core,"
                + "upstream-*,capacity-tick,quota-state,"
                + "probe-*,fault-expiry,config-watch,batch-*,task-run,task-resume,task-expiry,async-submit");
        MicrometerRoutePolicyFactory factory = new MicrometerRoutePolicyFactory();
        factory.setCamelContext(context);
        factory.setPolicyConfiguration(timers);
        return factory;
    }

    /** Something to close when the context stops (the Vert.x of the HTTP server and the calls, the Redis connections). */
    private static final class OnStop extends ServiceSupport {
        private final ThrowingRunnable<Exception> close;

        OnStop(ThrowingRunnable<Exception> close) {
            this.close = close;
        }

        @Override
        protected void doStop() throws Exception {
            close.run();
        }
    }

    private static void addService(CamelContext context, Object service) {
        try {
            context.addService(service, true, true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start " + service.getClass().getSimpleName(), e);
        }
    }

    private static void addStartupListener(CamelContext context, StartupListener listener) {
        try {
            context.addStartupListener(listener);
        } catch (Exception e) {
            throw new IllegalStateException("cannot listen to the start of " + context.getName(), e);
        }
    }

    /** A setting whose default application.properties gives; missing only when that file was not loaded. */
    private static String required(PropertiesComponent properties, String name) {
        return properties.resolveProperty(name).orElseThrow(() -> new IllegalStateException(
                "Setting " + name + " is missing: start KeyPool with its application.properties"));
    }
}
