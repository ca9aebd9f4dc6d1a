package dev.keypool.it;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.KeyPoolApplication;
import dev.keypool.camel.PromptShutdown;
import dev.keypool.camel.ScheduledPoolsKeepAThread;
import dev.keypool.events.EventLog;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.FreePorts;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import dev.keypool.testing.StateDirs;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.Registry;
import org.apache.camel.spi.ShutdownStrategy;
import org.apache.camel.spi.ThreadPoolFactory;
import org.apache.camel.support.DefaultRegistry;
import org.apache.camel.test.main.junit5.CamelMainTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Boots the real KeyPool Main (YAML routes from routes/, application.properties from the repo root) on a free
 * port, with a keypool.yaml written by the test, a fake upstream on loopback and a clock the test moves.
 * Lives outside dev.keypool.camel: {@code new Main(KeyPoolApplication.class)} scans that package, test classes
 * included, and would try to start test route builders as routes of the gateway.
 * <p>
 * A gateway boots and stops per test method by default. A class annotated
 * {@code @TestInstance(TestInstance.Lifecycle.PER_CLASS)} shares one gateway (and one fake upstream) among its tests,
 * which saves a boot per test: only for tests that need no fresh gateway, that is, that assert nothing a previous test
 * of the class changes (key and breaker states, counters, the clock). Before each of them the fake upstream forgets
 * what it was told and received, and the captured log is emptied. Such a class can give each test a channel (tenant,
 * model) of its own, named after the test: {@link #testName()}, and {@link #testNames()} for its keypool.yaml.
 */
public abstract class GatewayTestSupport extends CamelMainTestSupport {

    protected final MutableClock clock = new MutableClock();
    protected final FakeUpstream upstream = new FakeUpstream();
    protected final LogCapture logs = LogCapture.attach();
    protected final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    protected final int port = freePort();

    /** The keypool.yaml of this test; {@code UPSTREAM} is replaced by the fake upstream's base URL. */
    protected abstract String keypoolYaml();

    @Override
    protected Class<?> getMainClass() {
        return KeyPoolApplication.class;
    }

    @Override
    protected String getPropertyPlaceholderLocations() {
        return "file:application.properties";
    }

    @Override
    protected Registry createCamelRegistry() throws Exception {
        Registry registry = new DefaultRegistry();
        registry.bind("clock", java.time.Clock.class, clock);
        // Camel Main takes its stop strategy from the registry: the shipped gateway's (KeyPoolApplication.newMain)
        registry.bind("shutdownStrategy", ShutdownStrategy.class, new PromptShutdown());
        registry.bind("threadPoolFactory", ThreadPoolFactory.class, new ScheduledPoolsKeepAThread());
        return registry;
    }

    @Override
    protected CamelContext createCamelContext() throws Exception {
        // CamelTestSupport reads its override properties in its constructor, before this class's fields exist
        camelContextConfiguration().withUseOverridePropertiesWithPropertiesComponent(overrideProperties());
        return super.createCamelContext();
    }

    protected Properties overrideProperties() {
        try {
            Path config = Files.createTempFile("keypool-test-", ".yaml");
            config.toFile().deleteOnExit();
            Files.writeString(config, keypoolYaml().replace("UPSTREAM", upstream.baseUrl()));
            Properties p = new Properties();
            p.put("keypool.config", config.toString());
            p.put("camel.server.port", String.valueOf(port));
            p.put("camel.management.port", String.valueOf(port));
            p.put("keypool.retry-backoff-ms", "1");
            // request-log rows written within 50 ms: a test reading them back need not wait for the 1 s beat
            p.put("keypool.request-log.batch-ms", "50");
            // none of Camel's listings of every route started and stopped and every setting applied (some 250 lines a
            // boot that no test reads, and that the test JVM formats and hands to Maven): KeyPool's own lines stay
            p.put("camel.main.startup-summary-level", "Off");
            p.put("camel.main.auto-configuration-log-summary", "false");
            // a stop waits for each idle queue consumer's poll, one after another (some 300 ms a stop at the shipped 100)
            p.put("keypool.queue-poll-ms", "10");
            // a batch held back for capacity looks again 10 times a second: a test that checks that nothing is sent
            // meanwhile sees several rounds in a fraction of a second
            p.put("batch.round-delay-ms", "100");
            // each test its own quota state: none left over from another test or run; its store migrated already
            p.put("state.dir", StateDirs.fresh().toString());
            // and its own batch inbox, not the repository's batch/inbox
            Path batch = Files.createTempDirectory("keypool-batch-");
            p.put("batch.inbox", batch.resolve("inbox").toString());
            p.put("batch.outbox", batch.resolve("outbox").toString());
            return p;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Stops the gateway of a class that shares one, and closes its fakes, once its tests are done: Camel's test support
     * stops a context made per class never (camel-test-junit5 4.18: its afterAll does nothing for one), so each such
     * class left its gateway running, threads, port and MBeans, for the rest of the test JVM.
     */
    @RegisterExtension
    final AfterAllCallback closeSharedFakes = context -> {
        if (sharesGateway()) {
            stopCamelContext();
            upstream.close();
            logs.close();
        }
    };

    private String testName;

    @BeforeEach
    void nameTheTest(TestInfo test) {
        testName = asName(test.getTestMethod().orElseThrow().getName());
    }

    /**
     * The running test's name as channels, models and tenants are named (a-z, 0-9 and '-'; "should_" left out):
     * {@code should_cool_key_on_429} is {@code cool-key-on-429}.
     */
    protected String testName() {
        return testName;
    }

    /** Every test of this class as {@link #testName()} names it, for a keypool.yaml with a channel of each. */
    protected List<String> testNames() {
        return ReflectionSupport.findMethods(getClass(), m -> AnnotationSupport.isAnnotated(m, Test.class),
                HierarchyTraversalMode.TOP_DOWN).stream().map(m -> asName(m.getName())).toList();
    }

    private static String asName(String method) {
        return method.replaceFirst("^should_", "").replace('_', '-').toLowerCase(java.util.Locale.ROOT);
    }

    @BeforeEach
    void forgetPreviousTest() {
        if (sharesGateway()) {
            upstream.restore();
            logs.clear();
        }
    }

    @AfterEach
    void closeFakes() {
        if (!sharesGateway()) {
            upstream.close();
            logs.close();
        }
    }

    private boolean sharesGateway() {
        return AnnotationSupport.findAnnotation(getClass(), TestInstance.class)
                .map(t -> t.value() == TestInstance.Lifecycle.PER_CLASS).orElse(false);
    }

    protected Channel channel(String name) {
        return context.getRegistry().lookupByNameAndType("channels", Channels.class).get(name).orElseThrow();
    }

    protected String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    protected HttpResponse<String> post(String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url(path)))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer client-token-should-not-leak")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    protected HttpResponse<String> get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30)).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The requests counted in {@code keypool_requests_total} whose labels include all of {@code labels} (each as
     * {@code name="value"}), summed over the other labels, from /observe/metrics.
     */
    protected double requestsCounted(String... labels) throws Exception {
        return get("/observe/metrics").body().lines()
                .filter(line -> line.startsWith("keypool_requests_total{")
                        && Arrays.stream(labels).allMatch(line::contains))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    protected HttpResponse<String> getWithToken(String path, String token) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** A chat request of the tenant with this token (none: no Authorization header). */
    protected HttpResponse<String> chatAs(String token, String model) throws Exception {
        return postAs(token, chatBody(model));
    }

    /** A chat request with this body, of the tenant with this token (none: no Authorization header). */
    protected HttpResponse<String> postAs(String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The tenant of this name in /admin/status. */
    protected JsonNode tenant(String name, String adminToken) throws Exception {
        for (JsonNode tenant : new ObjectMapper()
                .readTree(getWithToken("/admin/status", adminToken).body()).path("tenants")) {
            if (tenant.path("name").asText().equals(name)) {
                return tenant;
            }
        }
        throw new AssertionError("no tenant " + name + " in /admin/status");
    }

    protected HttpResponse<String> chat(String model) throws Exception {
        return post("/v1/chat/completions", chatBody(model));
    }

    /** A chat request with {@code stream: true} for this model; its events in the answer's body. */
    protected HttpResponse<String> chatStream(String model) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model
                        + "\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** A request to the admin API with this admin token, a JSON body or none (null). */
    protected HttpResponse<String> adminRequest(String adminToken, String method, String path, String body)
            throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + adminToken).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A chat request written on a plain socket, whose client can then hang up at a moment the test chooses (an HTTP
     * client library would not say when it closes its connection). Close the socket to hang up.
     */
    protected Socket rawChat(String body) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        return socket;
    }

    protected static String chatBody(String model) {
        return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    static int freePort() {
        return FreePorts.next();
    }

    /**
     * Reloads keypool.yaml through the admin API and, while the reload is under way, once it has reloaded a channel's
     * keys and before it is done (it tells of a key it adds to that channel), sends {@code requests} chats for
     * {@code model} from the reload's own thread: the key each was served by (X-KeyPool-Key), or its status and body.
     * The file must add a key for that moment to come.
     */
    protected List<String> servedWhileReloading(AdminCalls admin, String model, int requests) throws Exception {
        EventLog events = context.getRegistry().lookupByNameAndType("eventLog", EventLog.class);
        List<String> servedBy = new CopyOnWriteArrayList<>();
        List<String> failures = new CopyOnWriteArrayList<>();
        try (EventLog.Subscription reloading = events.subscribe(Long.MAX_VALUE, entry -> {
            if (entry.event().message().contains("added by reload")) {
                for (int i = 0; i < requests; i++) {
                    try {
                        HttpResponse<String> answer = chat(model);
                        servedBy.add(answer.headers().firstValue("X-KeyPool-Key").orElse(answer.statusCode() + " " + answer.body()));
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }
            }
        })) {
            HttpResponse<String> reloaded = admin.post("/admin/reload");
            assertThat(reloaded.statusCode()).as(reloaded.body()).isEqualTo(200);
        }
        assertThat(failures).isEmpty();
        return servedBy;
    }
}
