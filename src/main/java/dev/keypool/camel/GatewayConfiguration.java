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
import dev.keypool.config.TenantConfig;
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
import dev.keypool.tenant.LocalTenantLimits;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.Tenants;
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
        registry.bind("vertxOptions", vertxOptions(Integer.parseInt(required(properties, "keypool.worker-threads"))));
        if (Boolean.parseBoolean(required(properties, "camel.metrics.enabled"))) {
            context.addRoutePolicyFactory(routeTimers(context));
        }

        // every key and breaker state change, for whoever listens (admin events, metrics, shared state)
        StateListeners stateListeners = new StateListeners();
        registry.bind("stateListeners", stateListeners);
        List<Channel> channels = new ArrayList<>();
        for (ChannelConfig c : config.channels()) {
            List<ApiKey> keys = c.keys().stream()
                    .map(k -> new ApiKey(k.key(), k.label(), k.weight(), k.limits(), k.tenant())).toList();
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
        Tenants tenants = tenants(config, clock);
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
        registry.bind("streamRelay", new StreamRelay(mapper, tokenEstimator));
        registry.bind("capacityWait", new CapacityWait(capacityQueue, config.queue().maxWait(), clock));
        GatewayResponses gatewayResponses = new GatewayResponses(mapper, clock);
        registry.bind("gatewayResponses", gatewayResponses);
        addStartupListener(context, new StartupListener() {
            @Override
            public void onCamelContextStarted(CamelContext started, boolean alreadyStarted) {
                // platform-http's router is not there yet
            }

            @Override
            public void onCamelContextFullyStarted(CamelContext started, boolean alreadyStarted) {
                // one router per HTTP server (the API's, and the management one when it has its own port)
                started.getRegistry().findByType(VertxPlatformHttpRouter.class)
                        .forEach(router -> UnmatchedRequests.install(router, gatewayResponses));
            }
        });
        registry.bind("modelCatalog", new ModelCatalog(all, mapper));
        registry.bind("demoUpstream", new DemoUpstream(mapper));
        registry.bind("adminGuard", new AdminGuard(config.admin() == null ? null : config.admin().token()));
        registry.bind("adminStatus", new AdminStatus(all, capacityQueue, tenants, mapper));
        // read back now, before any route takes traffic; written by the quota-state timer route and when the context stops
        QuotaStateKeeper quotaState = new QuotaStateKeeper(all, new QuotaStateFile(Path.of(required(properties, "state.dir"))));
        registry.bind("quotaState", quotaState);
        addService(context, quotaState);

        LOG.info("KeyPool configuration {}: {} channels", file, channels.size());
        if (config.tenants().isEmpty()) {
            LOG.warn("No tenants configured: the gateway is open to every client that can reach it");
        } else {
            LOG.info("{} tenants ({}): every API request needs one's token", config.tenants().size(),
                    config.tenants().stream().map(TenantConfig::name).collect(Collectors.joining(", ")));
        }
    }

    /** The tenants of keypool.yaml, with their limits kept in this instance. */
    private static Tenants tenants(GatewayConfig config, Clock clock) {
        return new Tenants(config.tenants().stream()
                .map(t -> new Tenant(t.name(), t.token(), t.priority(), t.channels(), t.models(), t.borrow(),
                        new LocalTenantLimits(t.name(), t.rpm(), t.bucketSize() == null ? 1 : t.bucketSize(), t.tpm(),
                                t.rpd(), t.budgetDaily(), t.budgetMonthly(), clock)))
                .toList());
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
