package dev.keypool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import dev.keypool.camel.KeyPoolApplication;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import org.apache.camel.main.Main;

/**
 * One whole gateway (a real Camel Main on its own port and state.dir) for tests that run several side by side, as N
 * instances behind a load balancer would run: each has its own {@code keypool.yaml} copy, clock and registry.
 */
public final class GatewayInstance implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final Main main;
    private final int port;
    private final Path home;

    private GatewayInstance(Main main, int port, Path home) {
        this.main = main;
        this.port = port;
        this.home = home;
    }

    /**
     * Starts a gateway with {@code keypool.yaml} as its configuration, its files under {@code dir/name}.
     *
     * @param clock the instance's clock (the same object may be given to several instances)
     */
    public static GatewayInstance start(Path dir, String name, String keypoolYaml, Clock clock) {
        return start(dir, name, keypoolYaml, clock, Map.of());
    }

    /**
     * Starts a gateway as {@link #start(Path, String, String, Clock)} does, with these settings of
     * application.properties overridden. A gateway started again with the same {@code dir} and {@code name} finds the
     * state the previous one left, as after a restart.
     */
    public static GatewayInstance start(Path dir, String name, String keypoolYaml, Clock clock,
            Map<String, String> settings) {
        return start(dir, name, keypoolYaml, clock, settings, Map.of());
    }

    /**
     * Starts a gateway as {@link #start(Path, String, String, Clock, Map)} does, with these beans bound in its registry
     * before it starts (what Camel Main picks up from there, e.g. a route policy factory).
     */
    public static GatewayInstance start(Path dir, String name, String keypoolYaml, Clock clock,
            Map<String, String> settings, Map<String, Object> beans) {
        try {
            Path home = Files.createDirectories(dir.resolve(name));
            Path config = home.resolve("keypool.yaml");
            Files.writeString(config, keypoolYaml);
            int port = freePort();
            Main main = KeyPoolApplication.newMain();
            main.bind("clock", clock);
            beans.forEach(main::bind);
            main.setPropertyPlaceholderLocations("file:application.properties");
            main.addOverrideProperty("camel.main.name", "keypool-" + name);
            main.addOverrideProperty("keypool.config", config.toString());
            main.addOverrideProperty("camel.server.port", String.valueOf(port));
            main.addOverrideProperty("camel.management.port", String.valueOf(port));
            // its store migrated already, unless an instance ran on this home before (StateDirs)
            main.addOverrideProperty("state.dir", StateDirs.withMigratedStore(home.resolve("state")).toString());
            // none of Camel's listings of every route and setting (as GatewayTestSupport): KeyPool's own lines stay
            main.addOverrideProperty("camel.main.startup-summary-level", "Off");
            main.addOverrideProperty("camel.main.auto-configuration-log-summary", "false");
            // a stop waits for each idle queue consumer's poll, one after another (as GatewayTestSupport)
            main.addOverrideProperty("keypool.queue-poll-ms", "10");
            // no MBeans, as GatewayTestSupport boots (Camel's test support turns JMX off): about half of a boot's CPU
            // (GatewayBootBench); a test of JMX turns it on in its settings
            main.addOverrideProperty("camel.main.jmx-enabled", "false");
            settings.forEach(main::addOverrideProperty);
            main.start();
            return new GatewayInstance(main, port, home);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("gateway " + name + " did not start", e);
        }
    }

    public int port() {
        return port;
    }

    /** The instance's state.dir. */
    public Path stateDir() {
        return home.resolve("state");
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** A bean of the instance's registry. */
    public <T> T bean(String name, Class<T> type) {
        T bean = main.getCamelContext().getRegistry().lookupByNameAndType(name, type);
        if (bean == null) {
            throw new IllegalStateException("no bean " + name);
        }
        return bean;
    }

    public Channel channel(String name) {
        return bean("channels", Channels.class).get(name).orElseThrow();
    }

    /** {@code POST /v1/chat/completions} for {@code model}, with {@code token} as Bearer when not null. */
    public HttpResponse<String> chat(String model, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl() + "/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .timeout(Duration.ofSeconds(30));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return send(request.build());
    }

    /** Any request (to this gateway, another, or a load balancer in front of them), answered as text. */
    public static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        main.stop();
    }

    private static int freePort() {
        return FreePorts.next();
    }
}
