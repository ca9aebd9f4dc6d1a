package dev.keypool.camel;

import java.nio.file.Path;
import java.time.Clock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.admin.RuntimeTenants;
import dev.keypool.camel.batch.BatchBeans;
import dev.keypool.camel.pipeline.RequestLog;
import dev.keypool.config.ConfigLoader;
import dev.keypool.config.GatewayConfig;
import dev.keypool.config.TenantConfig;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.quota.TokenEstimator;
import dev.keypool.redis.RedisLink;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds KeyPool from keypool.yaml and binds the beans the YAML routes call, one area at a time (each area's class
 * binds its beans and hands on what the next ones need). Beans that depend on each other are bound in order, since
 * Camel runs {@code @BindToRegistry} methods in no defined order. A {@link Clock} bean bound before startup (tests)
 * replaces the system clock everywhere. Settings come from application.properties, the one place their defaults are
 * written.
 */
@Configuration
public class GatewayConfiguration implements CamelConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayConfiguration.class);

    /**
     * The request path's JSON mapper. Jackson's default buffer pool is per thread: on virtual threads, one thread per
     * request, so every parse and write allocated fresh buffers (async-profiler under {@code bench/run.sh translate});
     * one pool shared by all threads reuses them.
     */
    static ObjectMapper jsonMapper() {
        return new ObjectMapper(JsonFactory.builder().recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool()).build());
    }

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
        Function<String, String> settings = Wiring.settings(context);
        Path file = ConfigLoader.configuredPath(settings, System::getenv);
        // the demo channel follows the listener when it speaks TLS (the reloads' loader too)
        ConfigLoader loader = new ConfigLoader(ConfigLoader.variables(settings, System::getenv))
                .adjusting(http ? DemoOverTls.onListener(context) : UnaryOperator.identity());
        GatewayConfig config = loader.load(file);
        Clock clock = context.getRegistry().findSingleByType(Clock.class);
        if (clock == null) {
            clock = Clock.systemUTC();
        }
        ObjectMapper mapper = jsonMapper();
        int requestsHeld = http ? ServerBeans.startVertx(context) : Integer.MAX_VALUE;
        GatewayMetrics metrics = MetricsBeans.bind(context);
        RedisLink redis = SharedStateBeans.link(context, config, metrics);
        ClusterBeans.Identity instance = ClusterBeans.identify(context, http, clock);
        ChannelBeans channels = ChannelBeans.bind(context, config, clock, metrics, redis, instance.id());
        UpstreamBeans.bind(context, redis != null);
        ProviderBeans.bind(context);
        TenantBeans tenants = TenantBeans.of(context, config.tenants(), redis, clock);
        // the control plane's database, and the request log written into it by routes/request-log.camel.yaml
        RequestLog requestLog = DatabaseBeans.bind(context, config, channels.stateDir(), clock, metrics, channels.all(),
                tenants.tenants());
        // batches, async tasks and the queue consumers (routes/batch.camel.yaml): in the database when several
        // instances share it (PostgreSQL), else in this instance's state.dir (design §12)
        BatchBeans.bind(context, tenants.tenants(), mapper, clock, config.database().postgres().isPresent()
                ? context.getRegistry().lookupByNameAndType(DatabaseBeans.DATA_SOURCE, DataSource.class) : null,
                instance.id());
        // tenants at runtime (routes/tenants.camel.yaml): the file's laid over with the admin API's, kept in the database
        RuntimeTenants runtimeTenants = TenantStoreBeans.bind(context, config.tenants(), tenants, channels.all(), redis,
                clock, channels.stateListeners(), mapper);
        RoutingBeans routing = RoutingBeans.bind(context, config, channels.all());
        PipelineBeans pipeline = PipelineBeans.bind(context, requestsHeld, channels.all(), tenants.tenants(), config.queue(),
                requestLog, metrics, mapper, clock, routing);
        ResponseCacheBeans.bind(context, routing.groups(), redis, metrics, requestLog, clock);
        TranslateBeans.bind(context, mapper, clock);
        // with token limits the tokenizer loads now, in the background: while it does, every request's route starts on
        // a request thread, not on an event loop where its count would load an encoding itself (TokenEstimator)
        BooleanSupplier tokenizerLoading = () -> false;
        if (config.countsTokens()) {
            TokenEstimator tokens = pipeline.tokenEstimator();
            tokens.loadInBackground();
            tokenizerLoading = () -> !tokens.loaded();
        }
        if (http) {
            ServerBeans.installEdge(context, pipeline.gatewayResponses(), redis != null, tokenizerLoading);
        }
        // the alert rules and their sinks (routes/alerts.camel.yaml)
        AlertBeans.bind(context, config, channels.all(), tenants.tenants(), channels.eventLog(), channels.stateListeners(),
                clock, mapper, redis);

        context.getRegistry().bind("demoUpstream", new DemoUpstream(mapper));
        AdminBeans.bind(context, config, file, loader, channels, tenants, runtimeTenants, pipeline.capacityQueue(), metrics,
                mapper, clock, redis, instance);
        SharedStateBeans.connect(redis, channels, clock);
        LOG.info("KeyPool configuration {}: {} channels", file, channels.all().all().size());
        if (config.tenants().isEmpty()) {
            LOG.warn("No tenants configured: the gateway is open to every client that can reach it");
        } else {
            LOG.info("{} tenants ({}): every API request needs one's token", config.tenants().size(),
                    config.tenants().stream().map(TenantConfig::name).collect(Collectors.joining(", ")));
        }
    }
}
