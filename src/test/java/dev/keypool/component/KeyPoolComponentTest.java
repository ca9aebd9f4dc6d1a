package dev.keypool.component;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.HostContexts;
import dev.keypool.testing.ListeningSockets;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keypool component in a host application's plain CamelContext: the host's route calls {@code keypool:chat} /
 * {@code keypool:embeddings}, and KeyPool's own pipeline (keys, breakers, fallback), packaged in the jar, runs in
 * that context against a fake provider on loopback. The tests share one host without KeyPool's HTTP API, each calling
 * from routes of its own ({@code direct:ask-<test>}, …) for a model of its own, which channel {@code <test>} serves with
 * keys of its own, falling back to {@code <test>-backup}; the host with the HTTP API is a test's own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyPoolComponentTest {

    private static final List<String> TESTS = List.of("rotate", "fallback", "refused", "embed", "tenant", "no-port");

    private final FakeUpstream upstream = new FakeUpstream();
    private Set<Integer> portsBeforeHost;
    private CamelContext host;

    /** A test's channels: {@code <test>} for model {@code <test>}, falling back to {@code <test>-backup}. */
    private static String channelsOf(String test) {
        return """
                  - name: %1$s
                    baseUrl: UPSTREAM
                    models: [%1$s]
                    fallback: [%1$s-backup]
                    keys:
                      - key: sk-%1$s-429
                      - key: sk-%1$s-ok
                  - name: %1$s-backup
                    baseUrl: UPSTREAM
                    models: [%1$s]
                    keys:
                      - key: sk-%1$s-backup
                """.formatted(test);
    }

    @BeforeAll
    void start() throws Exception {
        portsBeforeHost = ListeningSockets.ofThisProcess();
        host = start(TESTS, false, 0);
    }

    @BeforeEach
    void forgetPreviousTest() {
        upstream.restore();
    }

    @AfterAll
    void stop() {
        host.stop();
        upstream.close();
    }

    @Test
    void should_answer_a_host_route_and_rotate_past_a_rate_limited_key() throws Exception {
        upstream.answer("sk-rotate-429", 429);

        Exchange answer = ask("direct:ask-rotate", "Say hi", Map.of("HostHeader", "kept"));

        assertThat(answer.getException()).isNull();
        assertThat(answer.getMessage().getBody(String.class)).startsWith("{\"id\":\"chatcmpl-fake-").contains("\"chat.completion\"");
        assertThat(answer.getMessage().getHeaders()).containsEntry(KeyPoolConstants.CHANNEL, "rotate")
                .containsEntry(KeyPoolConstants.KEY, Fingerprint.of("sk-rotate-ok"))
                .containsEntry(KeyPoolConstants.ATTEMPTS, "2")
                .containsEntry(KeyPoolConstants.FALLBACK_LEVEL, "0")
                .containsEntry("HostHeader", "kept");
        // the plain-text body became the request's one user message, with the endpoint's model
        assertThat(upstream.received().get(1).body()).contains("\"model\":\"rotate\"")
                .contains("\"messages\":[{\"role\":\"user\",\"content\":\"Say hi\"}]");
        assertThat(upstream.hits("sk-rotate-429")).isEqualTo(1);
    }

    @Test
    void should_fall_back_to_the_next_channel_when_every_key_of_the_primary_fails() throws Exception {
        upstream.answer("sk-fallback-429", 500).answer("sk-fallback-ok", 500);

        Exchange answer = ask("direct:ask-fallback",
                "{\"model\":\"fallback\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", Map.of());

        assertThat(answer.getMessage().getHeaders()).containsEntry(KeyPoolConstants.CHANNEL, "fallback-backup")
                .containsEntry(KeyPoolConstants.FALLBACK_LEVEL, "1")
                .containsEntry(KeyPoolConstants.KEY, Fingerprint.of("sk-fallback-backup"));
    }

    @Test
    void should_hand_the_host_onException_a_KeyPoolException_with_status_and_code() throws Exception {
        Exchange noMessages = ask("direct:ask-handled", Map.of("model", "refused"), Map.of());
        assertThat(noMessages.getException()).isNull();
        assertThat(noMessages.getMessage().getBody(String.class)).isEqualTo("handled 400 missing_messages");

        KeyPoolException stream = (KeyPoolException) ask("direct:ask-refused",
                "{\"model\":\"refused\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", Map.of())
                .getException();
        assertThat(stream.getStatus()).isEqualTo(400);
        assertThat(stream.getCode()).isEqualTo("streaming_unsupported");

        upstream.answer("sk-refused-429", 429, "30", null).answer("sk-refused-ok", 429, "30", null)
                .answer("sk-refused-backup", 429, "30", null);
        Exchange exhausted = ask("direct:ask-refused", "hi", Map.of());
        KeyPoolException e = (KeyPoolException) exhausted.getException();
        assertThat(e.getStatus()).isEqualTo(503);
        assertThat(e.getCode()).isEqualTo("no_channel_available");
        assertThat(e.getRetryAfterSeconds()).isPositive();
        assertThat(e.getMessage()).doesNotContain("sk-");
    }

    @Test
    void should_send_a_map_body_as_an_embeddings_request() throws Exception {
        Exchange answer = ask("direct:embed", Map.of("model", "embed", "input", "a text to embed"),
                Map.of(KeyPoolConstants.TENANT, "team-a"));

        assertThat(answer.getException()).isNull();
        assertThat(answer.getMessage().getBody(String.class)).contains("\"embedding\"");
        assertThat(upstream.received().get(0).path()).endsWith("/embeddings");
        assertThat(upstream.received().get(0).body()).contains("a text to embed");
    }

    /** The tenant a host names reaches the pipeline's tenant step (the header, or the endpoint's option). */
    @Test
    void should_hand_the_tenant_to_the_pipeline_from_the_header_or_the_endpoint_option() throws Exception {
        List<Object> tenants = new CopyOnWriteArrayList<>();
        AdviceWith.adviceWith(host, "keypool-component-chat",
                route -> route.weaveAddLast().process(e -> tenants.add(e.getProperty("kpTenantName"))));

        ask("direct:ask-tenant", "hi", Map.of(KeyPoolConstants.TENANT, "team-a"));
        ask("direct:ask-tenant-as-team-b", "hi", Map.of());
        ask("direct:ask-tenant-as-team-b", "hi", Map.of(KeyPoolConstants.TENANT, "team-c"));

        // the endpoint's tenant option wins over a header (KeyPoolComponentPinnedTenantTest: unless allowTenantHeader)
        assertThat(tenants).containsExactly("team-a", "team-b", "team-b");
    }

    @Test
    void should_open_no_port_unless_asked() throws Exception {
        assertThat(ask("direct:ask-no-port", "hi", Map.of()).getException()).isNull();

        assertThat(ListeningSockets.ofThisProcess()).as("listening sockets of this JVM").isEqualTo(portsBeforeHost);
        assertThat(host.getRoute("chat-completions")).isNull();
        assertThat(host.getRoute("keypool-component-chat")).isNotNull();
    }

    @Test
    void should_serve_the_openai_http_api_too_when_http_is_enabled() throws Exception {
        int port = ListeningSockets.freePort();
        CamelContext withHttp = start(List.of("http"), true, port);
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"http\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("http");
            assertThat(ask(withHttp, "direct:ask-http", "hi", Map.of()).getMessage().getHeader(KeyPoolConstants.CHANNEL))
                    .isEqualTo("http");
        } finally {
            withHttp.stop();
        }
    }

    /** A host with the channels of {@code tests}, each with its host routes, and KeyPool's HTTP API when {@code http}. */
    private CamelContext start(List<String> tests, boolean http, int port) throws Exception {
        Path config = Files.createTempFile("keypool-host-", ".yaml");
        config.toFile().deleteOnExit();
        StringBuilder yaml = new StringBuilder("channels:\n");
        tests.forEach(test -> yaml.append(channelsOf(test)));
        Files.writeString(config, yaml.toString().replace("UPSTREAM", upstream.baseUrl()));
        CamelContext context = HostContexts.plain();
        context.getPropertiesComponent().addInitialProperty("state.dir", Files.createTempDirectory("keypool-state-").toString());
        context.getPropertiesComponent().addInitialProperty("keypool.retry-backoff-ms", "1");
        KeyPoolComponent keypool = context.getComponent("keypool", KeyPoolComponent.class);
        keypool.setConfig(config.toString());
        keypool.setHttpEnabled(http);
        keypool.setHttpPort(port);
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                for (String test : tests) {
                    from("direct:ask-" + test).routeId("host-ask-" + test).to("keypool:chat?model=" + test);
                }
                from("direct:embed").routeId("host-embed").to("keypool:embeddings");
                from("direct:ask-tenant-as-team-b").routeId("host-ask-tenant-as-team-b")
                        .to("keypool:chat?model=tenant&tenant=team-b");
                from("direct:ask-handled").routeId("host-ask-handled")
                        .onException(KeyPoolException.class).handled(true)
                            .setBody(simple("handled ${exception.status} ${exception.code}"))
                        .end()
                        .to("keypool:chat");
            }
        });
        context.start();
        return context;
    }

    private Exchange ask(String uri, Object body, Map<String, Object> headers) {
        return ask(host, uri, body, headers);
    }

    private static Exchange ask(CamelContext context, String uri, Object body, Map<String, Object> headers) {
        return context.createProducerTemplate().send(uri, e -> {
            e.getMessage().setBody(body);
            e.getMessage().setHeaders(new HashMap<>(headers));
        });
    }
}
