package dev.keypool.camel;

import dev.keypool.camel.http.RequestThreads;
import org.apache.camel.main.Main;

/** Starts KeyPool as a Camel Main service: routes from routes/*.camel.yaml, beans from {@link GatewayConfiguration}. */
public final class KeyPoolApplication {

    private KeyPoolApplication() {
    }

    public static void main(String[] args) throws Exception {
        // one virtual thread per request where the JVM has them (RequestThreads); before any Camel class reads it.
        // -Dcamel.threads.virtual.enabled=false keeps platform threads
        if (RequestThreads.virtualAvailable()) {
            System.getProperties().putIfAbsent(RequestThreads.VIRTUAL_PROPERTY, "true");
        }
        Main main = new Main(KeyPoolApplication.class);
        // operators edit application.properties next to routes/ and keypool.yaml, not inside the jar
        main.setPropertyPlaceholderLocations("file:application.properties;optional=true");
        main.run(args);
    }
}
