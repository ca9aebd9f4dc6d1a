package dev.keypool.camel;

import org.apache.camel.main.Main;

/** Starts KeyPool as a Camel Main service: routes from routes/*.camel.yaml, beans from {@link GatewayConfiguration}. */
public final class KeyPoolApplication {

    private KeyPoolApplication() {
    }

    public static void main(String[] args) throws Exception {
        Main main = new Main(KeyPoolApplication.class);
        // operators edit application.properties next to routes/ and keypool.yaml, not inside the jar
        main.setPropertyPlaceholderLocations("file:application.properties;optional=true");
        main.run(args);
    }
}
