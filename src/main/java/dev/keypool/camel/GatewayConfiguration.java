package dev.keypool.camel;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.ChannelBreaker;
import dev.keypool.config.ChannelConfig;
import dev.keypool.config.ConfigLoader;
import dev.keypool.config.GatewayConfig;
import dev.keypool.events.StateListeners;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.InFlightLimit;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.SelectionStrategy;
import dev.keypool.quota.CapacityQueue;
import dev.keypool.quota.QuotaStateFile;
import dev.keypool.quota.TokenEstimator;
import io.vertx.core.VertxOptions;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyConfiguration;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyFactory;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Configuration;
import org.apache.camel.StartupListener;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.Registry;
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
        if (http) {
            registry.bind("vertxOptions", vertxOptions(Integer.parseInt(required(properties, "keypool.worker-threads"))));
        }
        // off unless asked, as in Camel: an application embedding KeyPool may have no meter registry
        if (properties.resolveProperty("camel.metrics.enabled").map(Boolean::parseBoolean).orElse(false)) {
            context.addRoutePolicyFactory(routeTimers(context));
        }

        // every key and breaker state change, for whoever listens (admin events, metrics, shared state)
        StateListeners stateListeners = new StateListeners();
        registry.bind("stateListeners", stateListeners);
        List<Channel> channels = new ArrayList<>();
        for (ChannelConfig c : config.channels()) {
            List<ApiKey> keys = c.keys().stream().map(k -> new ApiKey(k.key(), k.label(), k.weight(), k.limits())).toList();
            KeyPool pool = new KeyPool(c.name(), keys, SelectionStrategy.named(c.strategy()), c.cooldown(),
                    c.disableAfter(), c.quotaZone(), clock, stateListeners);
            ChannelBreaker breaker = new ChannelBreaker(c.name(), c.breaker(), pool::hasActiveKey, clock, stateListeners);
            // the channel route's circuitBreaker EIP uses this instance (resilience4jConfiguration.circuitBreaker)
            registry.bind("breaker-" + c.name(), breaker.circuitBreaker());
            channels.add(new Channel(c, pool, breaker));
            if (c.baseUrl().contains("/demo/v1")) {
                LOG.info("Channel [{}] calls the built-in demo upstream SIMULATOR (canned answers, not a real LLM)", c.name());
            }
            LOG.info("Channel [{}]: {} keys ({}), models {}, fallback {}", c.name(), keys.size(),
                    keys.stream().map(ApiKey::fingerprint).collect(Collectors.joining(", ")), c.models(), c.fallback());
        }
        Channels all = new Channels(channels);
        long maxBody = Long.parseLong(required(properties, "keypool.max-body-bytes"));

        int maxInFlight = properties.resolveProperty("keypool.max-in-flight").filter(v -> !v.isBlank()).map(Integer::parseInt)
                .orElseGet(() -> InFlightLimit.sizedFromHeap(Runtime.getRuntime().maxMemory()));
        LOG.info("At most {} requests in flight (keypool.max-in-flight), then 503 overloaded", maxInFlight);

        registry.bind("admission", new Admission(new InFlightLimit(maxInFlight)));
        // camel-http ignores its own pool settings once it is given a connection manager: this one reads them
        registry.bind("upstreamConnections", UpstreamConnections.pool(
                Integer.parseInt(required(properties, "camel.component.http.connections-per-route"))));
        registry.bind("channels", all);
        TokenEstimator tokenEstimator = new TokenEstimator();
        registry.bind("requestPlanner", new RequestPlanner(all, mapper, maxBody, tokenEstimator));
        registry.bind("channelRouter", new ChannelRouter());
        registry.bind("channelOutcomes", new ChannelOutcomes());
        registry.bind("keySelector", new KeySelector());
        AttemptOutcomes attemptOutcomes = new AttemptOutcomes(clock);
        registry.bind("attemptRateLimited", attemptOutcomes.rateLimited());
        registry.bind("attemptKeyRejected", attemptOutcomes.keyRejected());
        registry.bind("attemptFailed", attemptOutcomes.upstreamFailed());
        registry.bind("attemptClientError", attemptOutcomes.clientError());
        registry.bind("upstreamResponses", new UpstreamResponses(mapper));
        registry.bind("streamRelay", new StreamRelay(mapper, tokenEstimator));
        CapacityQueue capacityQueue = new CapacityQueue(config.queue().maxSize(), clock);
        registry.bind("capacityWait", new CapacityWait(capacityQueue, config.queue().maxWait(), clock));
        GatewayResponses gatewayResponses = new GatewayResponses(mapper, clock);
        registry.bind("gatewayResponses", gatewayResponses);
        if (http) {
            boolean reload = properties.resolveProperty("camel.main.routes-reload-enabled").map(Boolean::parseBoolean).orElse(false);
            installRouterHandlers(context, gatewayResponses, reload);
        }
        registry.bind("modelCatalog", new ModelCatalog(all, mapper));
        registry.bind("demoUpstream", new DemoUpstream(mapper));
        registry.bind("adminGuard", new AdminGuard(config.admin() == null ? null : config.admin().token()));
        registry.bind("adminStatus", new AdminStatus(all, capacityQueue, mapper));
        // read back now, before any route takes traffic; written by the quota-state timer route and when the context stops
        QuotaStateKeeper quotaState = new QuotaStateKeeper(all, new QuotaStateFile(Path.of(required(properties, "state.dir"))));
        registry.bind("quotaState", quotaState);
        addService(context, quotaState);

        LOG.info("KeyPool configuration {}: {} channels", file, channels.size());
        if (config.tenants().isEmpty()) {
            LOG.warn("No tenants configured: the gateway is open to every client that can reach it");
        } else {
            // said loudly: a configured tenant list must not look like protection before it is one
            LOG.warn("{} tenants configured, but tenant tokens and limits are not enforced yet: "
                    + "the gateway is open to every client that can reach it", config.tenants().size());
        }
    }

    /**
     * Once the HTTP servers are up: OpenAI-shaped 404/405 for requests no route takes ({@link UnmatchedRequests}), and
     * with live route reload on, requests held while their route is replaced ({@link ReloadGate}).
     */
    private static void installRouterHandlers(CamelContext context, GatewayResponses gatewayResponses, boolean reload) {
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
                    if (reload) {
                        ReloadGate.install(started, router);
                    }
                }
            }
        });
    }

    /**
     * platform-http-vertx runs each exchange on a Vert.x worker thread and holds it until the route is done,
     * and LLM calls take seconds: the pool must be as large as the concurrency we promise (README, "Concurrency").
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

    /**
     * Timers for the routes a request enters by (chat-completions, embeddings, …) and for each channel route; not for
     * the internal hops every request crosses (gateway-core, upstream-call, upstream-attempt), nor Camel's
     * context-wide timer, which counts each of those hops as one more exchange. Camel's own route policy
     * ({@code camel.metrics.enable-route-policy}, off in application.properties) times every route twice.
     */
    private static MicrometerRoutePolicyFactory routeTimers(CamelContext context) {
        MicrometerRoutePolicyConfiguration timers = new MicrometerRoutePolicyConfiguration();
        timers.setContextEnabled(false);
        timers.setExcludePattern("gateway-core,fallback-walk,multipart-core,upstream-*,capacity-tick,quota-state");
        MicrometerRoutePolicyFactory factory = new MicrometerRoutePolicyFactory();
        factory.setCamelContext(context);
        factory.setPolicyConfiguration(timers);
        return factory;
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
