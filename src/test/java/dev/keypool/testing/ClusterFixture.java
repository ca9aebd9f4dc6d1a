package dev.keypool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.awaitility.Awaitility.await;

/**
 * Several gateways as a user runs them behind a load balancer, with real parts only: a redis-server and a PostgreSQL
 * started here, a fake provider, gateway processes ({@link GatewayProcess}, each its own JVM that a test may SIGKILL),
 * and Debian's nginx ({@code /usr/sbin/nginx}, installed by {@code ./test.sh}) in front of them, round robin, on the
 * repository's {@code deploy/nginx.conf} with its upstream servers and listen port replaced by this fixture's, and its
 * own pid, log and temp paths under the fixture's directory ({@code daemon off}, stopped by {@link #close()}).
 * <p>
 * Gateways are started on any keypool.yaml; {@link #deployYaml()} is the deployment files' own, whose variables
 * {@link #deployEnvironment} sets. Each gateway keeps its keypool.yaml, state and log ({@code <name>.log}) in a
 * directory of its own under the fixture's.
 */
public final class ClusterFixture implements AutoCloseable {

    public static final String READY_PATH = DeploySettings.READY_PATH;
    public static final String LIVE_PATH = DeploySettings.LIVE_PATH;
    private static final int DEPLOY_PORT = DeploySettings.PORT;
    private static final Path DEPLOY = DeploySettings.DEPLOY;
    public static final String ADMIN_TOKEN = "cluster-admin-token-5e8d1f";
    private static final Path NGINX = Path.of("/usr/sbin/nginx");

    /** One gateway process. */
    public record Instance(String name, int port, Path dir, Process process) {

        public String url() {
            return "http://127.0.0.1:" + port;
        }

        /** Its id in /admin/status and /admin/events when keypool.instance-id is not set: host and port. */
        public String idSuffix() {
            return ":" + port;
        }

        public Path log() {
            return dir.resolve(name + ".log");
        }
    }

    public final RedisServer redis;
    public final PostgresServer postgres;
    public final FakeUpstream upstream;
    private final Path root;
    private final List<Instance> instances = new CopyOnWriteArrayList<>();
    private Process nginx;
    private int balancerPort;

    private ClusterFixture(Path root) {
        this.root = root;
        RedisServer startedRedis = RedisServer.start();
        try {
            this.postgres = PostgresServer.start();
        } catch (RuntimeException e) {
            startedRedis.close();
            throw e;
        }
        this.redis = startedRedis;
        this.upstream = new FakeUpstream();
    }

    /** redis-server, PostgreSQL and the fake provider, started; gateways and nginx come next. */
    public static ClusterFixture start(Path root) {
        return new ClusterFixture(root);
    }

    /** deploy/keypool.yaml as it is in the repository. */
    public static String deployYaml() {
        try {
            return Files.readString(DEPLOY.resolve("keypool.yaml"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The variables deploy/keypool.yaml reads (as deploy/compose.yaml and kubernetes/secret.yaml set them), pointing at
     * this fixture's Redis, PostgreSQL and fake provider, with these two provider keys.
     */
    public Map<String, String> deployEnvironment(String key1, String key2) {
        Map<String, String> environment = new HashMap<>();
        environment.put("REDIS_URL", redis.url());
        environment.put("DATABASE_URL", postgres.url());
        environment.put("OPENAI_BASE_URL", upstream.baseUrl());
        environment.put("OPENAI_API_KEY_1", key1);
        environment.put("OPENAI_API_KEY_2", key2);
        environment.put("KEYPOOL_ADMIN_TOKEN", ADMIN_TOKEN);
        return environment;
    }

    /**
     * Starts {@code count} gateways named {@code gw-0}, {@code gw-1}… on {@code yaml}: the first alone (it migrates the
     * database), then the others together; returns once each one is ready.
     */
    public List<Instance> startGateways(int count, String yaml, Map<String, String> properties,
                                        Map<String, String> environment) {
        List<Instance> started = new ArrayList<>();
        started.add(startGateway("gw-" + instances.size(), yaml, properties, environment));
        List<Instance> rest = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            rest.add(launch("gw-" + instances.size(), yaml, properties, environment));
        }
        rest.forEach(instance -> awaitReady(instance));
        started.addAll(rest);
        return started;
    }

    /** One more gateway, started and ready. */
    public Instance startGateway(String name, String yaml, Map<String, String> properties, Map<String, String> environment) {
        Instance instance = launch(name, yaml, properties, environment);
        awaitReady(instance);
        return instance;
    }

    private Instance launch(String name, String yaml, Map<String, String> properties, Map<String, String> environment) {
        try {
            Path dir = Files.createDirectories(root.resolve(name));
            int port = FreePorts.next();
            Process process = GatewayProcess.start(dir, name, yaml, port, DeploySettings.IMAGE_JVM_FLAGS, properties, environment);
            Instance instance = new Instance(name, port, dir, process);
            instances.add(instance);
            return instance;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitReady(Instance instance) {
        await().atMost(Duration.ofMinutes(6)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
            if (!instance.process().isAlive()) {
                throw new IllegalStateException(instance.name() + " exited: see " + instance.log());
            }
            return get(instance.url() + READY_PATH).statusCode() == 200;
        });
    }

    /** The gateways started so far, in their order. */
    public List<Instance> instances() {
        return List.copyOf(instances);
    }

    public Instance instance(int index) {
        return instances.get(index);
    }

    /** {@code kill}: SIGTERM, the stop an orchestrator asks for; returns once the gateway has exited. */
    public void stop(Instance instance) {
        instance.process().destroy();
        try {
            if (!instance.process().waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(instance.name() + " did not stop within 60 s: see " + instance.log());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code kill -9} of one gateway: no shutdown hook, nothing written on the way out. */
    public void kill(Instance instance) {
        instance.process().destroyForcibly();
        try {
            instance.process().waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * nginx in front of every gateway started so far, on deploy/nginx.conf: returns once it answers a request with one
     * of theirs.
     */
    public void startBalancer() {
        if (!Files.isExecutable(NGINX)) {
            throw new IllegalStateException(NGINX + " not found: install Debian's nginx (./test.sh does)");
        }
        try {
            Path dir = Files.createDirectories(root.resolve("nginx"));
            Files.createDirectories(dir.resolve("temp"));
            balancerPort = FreePorts.next();
            Path conf = dir.resolve("nginx.conf");
            Files.writeString(conf, balancerConfig(Files.readString(DEPLOY.resolve("nginx.conf")), dir));
            nginx = new ProcessBuilder(NGINX.toString(), "-p", dir.toString(), "-c", conf.toString(),
                    "-e", dir.resolve("error.log").toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("nginx.out").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> {
            if (!nginx.isAlive()) {
                throw new IllegalStateException("nginx exited: see " + root.resolve("nginx"));
            }
            return get(balancerUrl() + READY_PATH).statusCode() == 200;
        });
    }

    /**
     * deploy/nginx.conf with this fixture's gateways as the upstream servers and its own port, in the foreground, with
     * its pid, logs and temp files under {@code dir}.
     */
    String balancerConfig(String deployed, Path dir) {
        String servers = instances.stream().map(i -> "        server 127.0.0.1:" + i.port() + ";")
                .collect(Collectors.joining("\n"));
        Matcher upstream = Pattern.compile("(?m)(^\\s*server\\s+\\S+:" + DEPLOY_PORT + ";\\s*\\n)+").matcher(deployed);
        if (!upstream.find()) {
            throw new IllegalStateException("deploy/nginx.conf has no upstream servers on port " + DEPLOY_PORT);
        }
        String config = upstream.replaceFirst(Matcher.quoteReplacement(servers + "\n"));
        Matcher listen = Pattern.compile("listen " + DEPLOY_PORT + ";").matcher(config);
        if (!listen.find()) {
            throw new IllegalStateException("deploy/nginx.conf does not listen on port " + DEPLOY_PORT);
        }
        config = listen.replaceFirst("listen 127.0.0.1:" + balancerPort + ";");
        String temp = dir.resolve("temp").toString();
        config = config.replaceFirst("http \\{", Matcher.quoteReplacement("http {\n"
                + "    log_format answered '$request_method $request_uri $status $upstream_addr';\n"
                + "    access_log " + dir.resolve("access.log") + " answered;\n"
                + "    client_body_temp_path " + temp + "/body;\n"
                + "    proxy_temp_path " + temp + "/proxy;\n"
                + "    fastcgi_temp_path " + temp + "/fastcgi;\n"
                + "    uwsgi_temp_path " + temp + "/uwsgi;\n"
                + "    scgi_temp_path " + temp + "/scgi;\n"));
        // as root, nginx's workers would run as nobody, who may not enter this directory
        String user = "root".equals(System.getProperty("user.name")) ? "user root;\n" : "";
        return user + "daemon off;\npid " + dir.resolve("nginx.pid") + ";\n" + config;
    }

    /**
     * A request nginx answered: its method, path and query, its status, and the gateways it went to, in order (more
     * than one when nginx passed it on after an error, as its {@code proxy_next_upstream} allows).
     */
    public record Answered(String method, String uri, int status, List<Instance> servedBy) {
    }

    /** The requests nginx answered so far, in order, from its access log. */
    public List<Answered> answered() {
        try {
            return Files.readAllLines(root.resolve("nginx").resolve("access.log")).stream().map(line -> {
                String[] parts = line.split(" ", 4);
                List<Instance> servedBy = parts.length < 4 || parts[3].equals("-") ? List.of()
                        : Arrays.stream(parts[3].split("\\s*[,:]\\s+"))
                        .map(address -> instanceAt(Integer.parseInt(address.substring(address.lastIndexOf(':') + 1))))
                        .toList();
                return new Answered(parts[0], parts[1], Integer.parseInt(parts[2]), servedBy);
            }).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Instance instanceAt(int port) {
        return instances.stream().filter(i -> i.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("no gateway on port " + port));
    }

    /** nginx's address. */
    public String balancerUrl() {
        return "http://127.0.0.1:" + balancerPort;
    }

    /** A request with the admin token to {@code baseUrl} (nginx's or one instance's). */
    public HttpResponse<String> admin(String baseUrl, String method, String path, String body) {
        return GatewayInstance.send(HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + ADMIN_TOKEN).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    /** A chat completion of {@code model} through {@code baseUrl}. */
    public HttpResponse<String> chat(String baseUrl, String model) {
        return GatewayInstance.send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model
                        + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build());
    }

    public HttpResponse<String> get(String url) {
        return GatewayInstance.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build());
    }

    @Override
    public void close() {
        if (nginx != null) {
            nginx.destroy();
            try {
                if (!nginx.waitFor(10, TimeUnit.SECONDS)) {
                    nginx.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        instances.forEach(instance -> instance.process().destroyForcibly());
        for (Instance instance : instances) {
            try {
                instance.process().waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        upstream.close();
        postgres.close();
        redis.close();
    }
}
