package dev.keypool.component;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.keypool.camel.AlertSinkRoutes;
import dev.keypool.camel.routes.ChannelRoutes;
import dev.keypool.camel.GatewayConfiguration;
import dev.keypool.camel.routes.PackagedRoutes;
import dev.keypool.camel.routes.PassthroughRoutes;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.RouteConfigurationsBuilder;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.component.platform.http.main.MainHttpServer;
import org.apache.camel.model.Model;
import org.apache.camel.model.ModelCamelContext;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.DefaultComponent;
import org.apache.camel.support.PropertyBindingSupport;
import org.apache.camel.util.StringHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code keypool:chat} and {@code keypool:embeddings} in a host application's own CamelContext: the component puts
 * KeyPool's pipeline into that context when it starts (the same beans as the service, {@link GatewayConfiguration},
 * and the same route files, packaged in the jar: {@link PackagedRoutes}, {@link ChannelRoutes}) and sends each request
 * through it. No HTTP port is opened unless {@code httpEnabled}: the HTTP entry routes are left out of the context.
 *
 * <p>KeyPool's own settings ({@code keypool.*}, {@code state.dir}) keep the defaults of the service's
 * application.properties, packaged in the jar, where the host does not set them; so do the camel-http settings the
 * alert webhooks need ({@code camel.component.http.*}: no automatic retries, no compression, no cookies …), which are
 * applied to the context's {@code http} component.
 */
@Component("keypool")
public class KeyPoolComponent extends DefaultComponent {

    private static final Logger LOG = LoggerFactory.getLogger(KeyPoolComponent.class);
    /** The service's application.properties, packaged (pom.xml): the one place KeyPool's defaults are written. */
    private static final String DEFAULTS = "keypool/application.properties";
    private static final String HTTP_SETTINGS = "camel.component.http.";

    @Metadata(description = "Path of keypool.yaml (channels, keys, tenants). Default: the keypool.config setting, "
            + "the KEYPOOL_CONFIG environment variable, else keypool.yaml in the working directory")
    private String config;

    @Metadata(defaultValue = "false", description = "Also serve KeyPool's OpenAI HTTP API (/v1/chat/completions …) "
            + "from this context: on the host's platform-http server when it has one (camel.server.enabled), else on httpPort")
    private boolean httpEnabled;

    @Metadata(defaultValue = "8080", description = "The port of KeyPool's own HTTP server, with httpEnabled and no server of the host's")
    private int httpPort = 8080;

    @Metadata(description = "A directory whose *.camel.yaml files replace KeyPool's packaged route files of the same name")
    private String routesDirectory;

    private final List<String> routeIds = new ArrayList<>();

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        if (!Set.of("chat", "embeddings").contains(remaining)) {
            throw new IllegalArgumentException("keypool:" + remaining + " is not an operation: use keypool:chat or keypool:embeddings");
        }
        KeyPoolOptions options = new KeyPoolOptions(getAndRemoveParameter(parameters, "model", String.class),
                getAndRemoveParameter(parameters, "tenant", String.class),
                getAndRemoveParameter(parameters, "allowTenantHeader", Boolean.class, false));
        KeyPoolEndpoint endpoint = new KeyPoolEndpoint(uri, this, remaining, options);
        setProperties(endpoint, parameters);
        return endpoint;
    }

    /**
     * Binds the pipeline's beans and adds its routes to the model. When the context is already reifying its routes
     * (the component is created by the first keypool: endpoint), they are started in {@link #doStart()}.
     */
    @Override
    protected void doInit() throws Exception {
        super.doInit();
        CamelContext context = getCamelContext();
        useDefaults(context.getPropertiesComponent());
        new GatewayConfiguration(httpEnabled).configure(context);
        configureHttpComponent(context);
        if (httpEnabled && !context.getPropertiesComponent().resolveProperty("camel.server.enabled")
                .map(Boolean::parseBoolean).orElse(false)) {
            MainHttpServer server = new MainHttpServer();
            server.setCamelContext(context);
            server.setPort(httpPort);
            context.addService(server, true, true);
            LOG.info("KeyPool serves its HTTP API on port {}", httpPort);
        }
        addRoutes(context);
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        CamelContext context = getCamelContext();
        Model model = context.getCamelContextExtension().getContextPlugin(Model.class);
        List<RouteDefinition> notStarted = model.getRouteDefinitions().stream()
                .filter(route -> routeIds.contains(route.getRouteId()) && context.getRoute(route.getRouteId()) == null)
                .toList();
        if (!notStarted.isEmpty()) {
            ((ModelCamelContext) context).startRouteDefinitions(notStarted);
        }
    }

    private void addRoutes(CamelContext context) throws Exception {
        Model model = context.getCamelContextExtension().getContextPlugin(Model.class);
        Set<String> before = routeIdsOf(model);
        List<RoutesBuilder> builders = new ArrayList<>();
        builders.add(new PackagedRoutes(routesDirectory == null ? "" : "file:" + routesDirectory + "/*.camel.yaml", true));
        builders.add(new ChannelRoutes());
        builders.add(new AlertSinkRoutes());
        if (httpEnabled) {
            builders.add(new PassthroughRoutes());
        }
        Function<RouteDefinition, Boolean> hostFilter = model.getRouteFilter();
        if (!httpEnabled) {
            // only while KeyPool's routes are added: the host's own platform-http routes are none of KeyPool's business
            model.setRouteFilter(route -> !isHttpEntry(route) && (hostFilter == null || hostFilter.apply(route)));
        }
        try {
            for (RoutesBuilder builder : builders) {
                if (builder instanceof RouteConfigurationsBuilder configurations) {
                    context.addRoutesConfigurations(configurations);
                }
            }
            for (RoutesBuilder builder : builders) {
                context.addRoutes(builder);
            }
            for (RoutesBuilder builder : builders) {
                context.addTemplatedRoutes(builder);
            }
        } finally {
            model.setRouteFilter(hostFilter);
        }
        Set<String> after = routeIdsOf(model);
        after.removeAll(before);
        routeIds.addAll(after);
        LOG.info("KeyPool pipeline in CamelContext {}: {} routes{}", context.getName(), after.size(),
                httpEnabled ? ", HTTP API on" : ", no HTTP");
    }

    private static boolean isHttpEntry(RouteDefinition route) {
        return route.getInput() != null && fromUri(route).startsWith("platform-http:");
    }

    /** The consumer's URI; for an instance of a template whose from is one parameter ({@code {{from}}}), its value. */
    private static String fromUri(RouteDefinition route) {
        String uri = route.getInput().getEndpointUri();
        Map<String, Object> parameters = route.getTemplateParameters();
        if (parameters != null && uri.startsWith("{{") && uri.endsWith("}}")
                && parameters.get(uri.substring(2, uri.length() - 2)) instanceof String value) {
            return value;
        }
        return uri;
    }

    private static Set<String> routeIdsOf(Model model) {
        return model.getRouteDefinitions().stream().map(RouteDefinition::getRouteId).collect(Collectors.toCollection(HashSet::new));
    }

    /** KeyPool's defaults where the host sets nothing, and the component's config option as keypool.config. */
    private void useDefaults(PropertiesComponent properties) {
        Properties defaults = new Properties();
        try (InputStream in = KeyPoolComponent.class.getClassLoader().getResourceAsStream(DEFAULTS)) {
            if (in == null) {
                throw new IllegalStateException(DEFAULTS + " is missing from the classpath: the keypool jar is incomplete");
            }
            defaults.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (config != null) {
            properties.addInitialProperty("keypool.config", config);
        }
        for (String name : defaults.stringPropertyNames()) {
            // batch.* too (routes/batch.camel.yaml), but no file inbox in a host's working directory unless it asks
            boolean keypools = name.startsWith("keypool.") || name.equals("state.dir") || name.startsWith(HTTP_SETTINGS)
                    || name.startsWith("batch.") && !name.equals("batch.inbox");
            if (keypools && properties.resolveProperty(name).isEmpty()) {
                properties.addInitialProperty(name, defaults.getProperty(name).strip());
            }
        }
    }

    /**
     * The camel-http settings of the alert webhooks (application.properties explains each), on the context's http
     * component: without them Apache HttpClient would retry a 429 or 503 by itself.
     */
    private static void configureHttpComponent(CamelContext context) {
        PropertiesComponent properties = context.getPropertiesComponent();
        HttpComponent http = context.getComponent("http", HttpComponent.class);
        Properties all = properties.loadProperties(name -> name.startsWith(HTTP_SETTINGS));
        for (String name : all.stringPropertyNames()) {
            String option = StringHelper.dashToCamelCase(name.substring(HTTP_SETTINGS.length()));
            PropertyBindingSupport.build().withCamelContext(context).withTarget(http)
                    .withProperty(option, properties.resolveProperty(name).orElseThrow()).bind();
        }
    }

    public String getConfig() {
        return config;
    }

    public void setConfig(String config) {
        this.config = config;
    }

    public boolean isHttpEnabled() {
        return httpEnabled;
    }

    public void setHttpEnabled(boolean httpEnabled) {
        this.httpEnabled = httpEnabled;
    }

    public int getHttpPort() {
        return httpPort;
    }

    public void setHttpPort(int httpPort) {
        this.httpPort = httpPort;
    }

    public String getRoutesDirectory() {
        return routesDirectory;
    }

    public void setRoutesDirectory(String routesDirectory) {
        this.routesDirectory = routesDirectory;
    }
}
