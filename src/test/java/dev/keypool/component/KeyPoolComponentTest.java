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
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.HostContexts;
import dev.keypool.testing.ListeningSockets;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keypool component in a host application's plain CamelContext: the host's route calls {@code keypool:chat} /
 * {@code keypool:embeddings}, and KeyPool's own pipeline (keys, breakers, fallback), packaged in the jar, runs in
 * that context against a fake provider on loopback.
 */
class KeyPoolComponentTest {

    private final FakeUpstream upstream = new FakeUpstream();
    private CamelContext host;

    @AfterEach
    void stop() {
        if (host != null) {
            host.stop();
        }
        upstream.close();
    }

    @Test
    void should_answer_a_host_route_and_rotate_past_a_rate_limited_key() throws Exception {
        upstream.answer("sk-main-429", 429);
        start(false);

        Exchange answer = ask("direct:ask", "Say hi", Map.of("HostHeader", "kept"));

        assertThat(answer.getException()).isNull();
        assertThat(answer.getMessage().getBody(String.class)).startsWith("{\"id\":\"chatcmpl-fake-").contains("\"chat.completion\"");
        assertThat(answer.getMessage().getHeaders()).containsEntry(KeyPoolConstants.CHANNEL, "main")
                .containsEntry(KeyPoolConstants.KEY, Fingerprint.of("sk-main-ok"))
                .containsEntry(KeyPoolConstants.ATTEMPTS, "2")
                .containsEntry(KeyPoolConstants.FALLBACK_LEVEL, "0")
                .containsEntry("HostHeader", "kept");
        // the plain-text body became the request's one user message, with the endpoint's model
        assertThat(upstream.received().get(1).body()).contains("\"model\":\"m\"")
                .contains("\"messages\":[{\"role\":\"user\",\"content\":\"Say hi\"}]");
        assertThat(upstream.hits("sk-main-429")).isEqualTo(1);
    }

    @Test
    void should_fall_back_to_the_next_channel_when_every_key_of_the_primary_fails() throws Exception {
        upstream.answer("sk-main-429", 500).answer("sk-main-ok", 500);
        start(false);

        Exchange answer = ask("direct:ask", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", Map.of());

        assertThat(answer.getMessage().getHeaders()).containsEntry(KeyPoolConstants.CHANNEL, "backup")
                .containsEntry(KeyPoolConstants.FALLBACK_LEVEL, "1")
                .containsEntry(KeyPoolConstants.KEY, Fingerprint.of("sk-backup-1"));
    }

    @Test
    void should_hand_the_host_onException_a_KeyPoolException_with_status_and_code() throws Exception {
        start(false);

        Exchange noMessages = ask("direct:ask-handled", Map.of("model", "m"), Map.of());
        assertThat(noMessages.getException()).isNull();
        assertThat(noMessages.getMessage().getBody(String.class)).isEqualTo("handled 400 missing_messages");

        KeyPoolException stream = (KeyPoolException) ask("direct:ask",
                "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", Map.of()).getException();
        assertThat(stream.getStatus()).isEqualTo(400);
        assertThat(stream.getCode()).isEqualTo("streaming_unsupported");

        upstream.answer("sk-main-429", 429, "30", null).answer("sk-main-ok", 429, "30", null).answer("sk-backup-1", 429, "30", null);
        Exchange exhausted = ask("direct:ask", "hi", Map.of());
        KeyPoolException e = (KeyPoolException) exhausted.getException();
        assertThat(e.getStatus()).isEqualTo(503);
        assertThat(e.getCode()).isEqualTo("no_channel_available");
        assertThat(e.getRetryAfterSeconds()).isPositive();
        assertThat(e.getMessage()).doesNotContain("sk-");
    }

    @Test
    void should_send_a_map_body_as_an_embeddings_request() throws Exception {
        start(false);

        Exchange answer = ask("direct:embed", Map.of("model", "m", "input", "a text to embed"), Map.of(KeyPoolConstants.TENANT, "team-a"));

        assertThat(answer.getException()).isNull();
        assertThat(answer.getMessage().getBody(String.class)).contains("\"embedding\"");
        assertThat(upstream.received().get(0).path()).endsWith("/embeddings");
        assertThat(upstream.received().get(0).body()).contains("a text to embed");
    }

    /** The tenant a host names reaches the pipeline's tenant step (the header, or the endpoint's option). */
    @Test
    void should_hand_the_tenant_to_the_pipeline_from_the_header_or_the_endpoint_option() throws Exception {
        start(false);
        List<Object> tenants = new CopyOnWriteArrayList<>();
        AdviceWith.adviceWith(host, "keypool-component-chat",
                route -> route.weaveAddLast().process(e -> tenants.add(e.getProperty("kpTenantName"))));

        ask("direct:ask", "hi", Map.of(KeyPoolConstants.TENANT, "team-a"));
        ask("direct:ask-as-team-b", "hi", Map.of());
        ask("direct:ask-as-team-b", "hi", Map.of(KeyPoolConstants.TENANT, "team-c"));

        // the endpoint's tenant option wins over a header (KeyPoolComponentPinnedTenantTest: unless allowTenantHeader)
        assertThat(tenants).containsExactly("team-a", "team-b", "team-b");
    }

    @Test
    void should_open_no_port_unless_asked() throws Exception {
        var before = ListeningSockets.ofThisProcess();
        start(false);
        assertThat(ask("direct:ask", "hi", Map.of()).getException()).isNull();

        assertThat(ListeningSockets.ofThisProcess()).as("listening sockets of this JVM").isEqualTo(before);
        assertThat(host.getRoute("chat-completions")).isNull();
        assertThat(host.getRoute("keypool-component-chat")).isNotNull();
    }

    @Test
    void should_serve_the_openai_http_api_too_when_http_is_enabled() throws Exception {
        int port = ListeningSockets.freePort();
        start(true, port);

        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("main");
        assertThat(ask("direct:ask", "hi", Map.of()).getMessage().getHeader(KeyPoolConstants.CHANNEL)).isEqualTo("main");
    }

    private void start(boolean http) throws Exception {
        start(http, 0);
    }

    private void start(boolean http, int port) throws Exception {
        Path config = Files.createTempFile("keypool-host-", ".yaml");
        config.toFile().deleteOnExit();
        Files.writeString(config, """
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [m]
                    fallback: [backup]
                    keys:
                      - key: sk-main-429
                      - key: sk-main-ok
                  - name: backup
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-backup-1
                """.replace("UPSTREAM", upstream.baseUrl()));
        host = HostContexts.plain();
        host.getPropertiesComponent().addInitialProperty("state.dir", Files.createTempDirectory("keypool-state-").toString());
        host.getPropertiesComponent().addInitialProperty("keypool.retry-backoff-ms", "1");
        KeyPoolComponent keypool = host.getComponent("keypool", KeyPoolComponent.class);
        keypool.setConfig(config.toString());
        keypool.setHttpEnabled(http);
        keypool.setHttpPort(port);
        host.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:ask").routeId("host-ask").to("keypool:chat?model=m");
                from("direct:embed").routeId("host-embed").to("keypool:embeddings");
                from("direct:ask-as-team-b").routeId("host-ask-as-team-b").to("keypool:chat?model=m&tenant=team-b");
                from("direct:ask-handled").routeId("host-ask-handled")
                        .onException(KeyPoolException.class).handled(true)
                            .setBody(simple("handled ${exception.status} ${exception.code}"))
                        .end()
                        .to("keypool:chat");
            }
        });
        host.start();
    }

    private Exchange ask(String uri, Object body, Map<String, Object> headers) {
        ProducerTemplate template = host.createProducerTemplate();
        return template.send(uri, e -> {
            e.getMessage().setBody(body);
            e.getMessage().setHeaders(new HashMap<>(headers));
        });
    }
}
