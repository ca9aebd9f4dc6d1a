package dev.keypool.camel;

import java.util.List;

import dev.keypool.camel.http.NettyBuffers;
import dev.keypool.camel.http.RequestThreads;
import dev.keypool.camel.routes.ChannelRoutes;
import dev.keypool.camel.routes.PackagedRoutes;
import dev.keypool.camel.routes.PassthroughRoutes;
import org.apache.camel.CamelContext;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.main.Main;

/** Starts KeyPool as a Camel Main service: routes from routes/*.camel.yaml, beans from {@link GatewayConfiguration}. */
public final class KeyPoolApplication {

    /**
     * The Java route builders of the gateway, named rather than found: a package scan reads every class of the package
     * at each start (KeyPoolApplicationTest checks that the scan would find no other).
     */
    static final List<Class<? extends RoutesBuilder>> ROUTE_BUILDERS =
            List.of(PackagedRoutes.class, ChannelRoutes.class, PassthroughRoutes.class, AlertSinkRoutes.class);

    private KeyPoolApplication() {
    }

    public static void main(String[] args) throws Exception {
        // one virtual thread per request where the JVM has them (RequestThreads); before any Camel class reads it.
        // -Dcamel.threads.virtual.enabled=false keeps platform threads
        if (RequestThreads.virtualAvailable()) {
            System.getProperties().putIfAbsent(RequestThreads.VIRTUAL_PROPERTY, "true");
        }
        // Netty's direct memory in 1 MiB chunks, read once when Netty's allocator loads
        NettyBuffers.poolInSmallChunks();
        Main main = newMain();
        // operators edit application.properties next to routes/ and keypool.yaml, not inside the jar
        main.setPropertyPlaceholderLocations("file:application.properties;optional=true");
        main.run(args);
    }

    /**
     * A Camel Main of the gateway: {@link GatewayConfiguration} and {@link #ROUTE_BUILDERS}, the YAML routes of
     * {@code camel.main.routes-include-pattern}, stopped by {@link PromptShutdown}, its scheduled pools made by
     * {@link ScheduledPoolsKeepAThread}. Before it loads the YAML routes,
     * Camel Main parses every file once more to look for modelines (Camel JBang's comments that name dependencies) and
     * beans; KeyPool has no modelines, and its YAML beans are bound when their file is loaded, so that first parse is
     * left out.
     */
    public static Main newMain() {
        Main main = new Main() {
            @Override
            protected void modelineRoutes(CamelContext context) {
                // no modelines: the routes are parsed once, when loaded
            }
        };
        // Camel Main takes its stop strategy from the registry: one that stops as soon as nothing is in flight
        main.bind("shutdownStrategy", new PromptShutdown());
        // and its thread pools from the registry's ThreadPoolFactory: no scheduled pool's thread woken every 10 ms
        main.bind("threadPoolFactory", new ScheduledPoolsKeepAThread());
        main.configure().addConfiguration(GatewayConfiguration.class);
        main.configure().addRoutesBuilder(ROUTE_BUILDERS.toArray(Class<?>[]::new));
        return main;
    }
}
