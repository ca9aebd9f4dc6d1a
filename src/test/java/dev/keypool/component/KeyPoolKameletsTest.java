package dev.keypool.component;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.HostContexts;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.builder.RouteConfigurationBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kamelets packaged in the jar (kamelets/keypool-*-action.kamelet.yaml), used by a host route as
 * {@code kamelet:keypool-chat-action?model=...}: KeyPool's pipeline behind them, the KeyPool* headers on the answer, and a
 * KeyPoolException for the calling route's onException (a Kamelet uses its caller's error handler).
 */
class KeyPoolKameletsTest {

    private final FakeUpstream upstream = new FakeUpstream();
    private CamelContext host;

    @BeforeEach
    void start() throws Exception {
        Path config = Files.createTempFile("keypool-kamelets-", ".yaml");
        config.toFile().deleteOnExit();
        Files.writeString(config, """
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [gpt-4o-mini, text-embedding-3-small]
                    fallback: [backup]
                    keys:
                      - key: sk-main-429
                      - key: sk-main-ok
                  - name: backup
                    baseUrl: UPSTREAM
                    models: [gpt-4o-mini]
                    keys:
                      - key: sk-backup-1
                """.replace("UPSTREAM", upstream.baseUrl()));
        host = HostContexts.plain();
        host.getPropertiesComponent().addInitialProperty("state.dir", Files.createTempDirectory("keypool-state-").toString());
        host.getPropertiesComponent().addInitialProperty("keypool.retry-backoff-ms", "1");
        host.getPropertiesComponent().addInitialProperty("keypool.config", config.toString());
        // as a routeConfiguration: a Kamelet's route takes its caller's error handler and route configuration, not the
        // onException clauses of the caller's RouteBuilder
        host.addRoutesConfigurations(new RouteConfigurationBuilder() {
            @Override
            public void configuration() {
                routeConfiguration().onException(KeyPoolException.class).handled(true)
                        .setBody(simple("no answer: ${exception.status} ${exception.code}"));
            }
        });
        host.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:ask").routeId("host-ask").to("kamelet:keypool-chat-action?model=gpt-4o-mini");
                from("direct:embed").routeId("host-embed").to("kamelet:keypool-embeddings-action?model=text-embedding-3-small");
            }
        });
        host.start();
    }

    @AfterEach
    void stop() {
        host.stop();
        upstream.close();
    }

    @Test
    void should_answer_through_the_chat_kamelet_past_a_rate_limited_key() {
        upstream.answer("sk-main-429", 429);

        Exchange answer = host.createProducerTemplate().request("direct:ask", e -> e.getMessage().setBody("Say hi"));

        assertThat(answer.getMessage().getBody(String.class)).contains("\"chat.completion\"");
        assertThat(answer.getMessage().getHeaders()).containsEntry(KeyPoolConstants.CHANNEL, "main")
                .containsEntry(KeyPoolConstants.KEY, Fingerprint.of("sk-main-ok"))
                .containsEntry(KeyPoolConstants.ATTEMPTS, "2");
        assertThat(upstream.received().get(1).body()).contains("\"model\":\"gpt-4o-mini\"");
    }

    @Test
    void should_fall_back_to_the_next_channel_through_the_chat_kamelet() {
        upstream.answer("sk-main-429", 503).answer("sk-main-ok", 503);

        Exchange answer = host.createProducerTemplate().request("direct:ask", e -> e.getMessage().setBody("Say hi"));

        assertThat(answer.getMessage().getHeaders()).containsEntry(KeyPoolConstants.CHANNEL, "backup")
                .containsEntry(KeyPoolConstants.FALLBACK_LEVEL, "1");
    }

    @Test
    void should_embed_through_the_embeddings_kamelet() {
        Exchange answer = host.createProducerTemplate().request("direct:embed", e -> e.getMessage().setBody("a text"));

        assertThat(answer.getMessage().getBody(String.class)).contains("\"embedding\"");
        assertThat(upstream.received().get(0).body()).contains("\"input\":\"a text\"").contains("\"model\":\"text-embedding-3-small\"");
    }

    @Test
    void should_give_the_calling_routes_onException_a_KeyPoolException() {
        upstream.answer("sk-main-429", 429, "20", null).answer("sk-main-ok", 429, "20", null).answer("sk-backup-1", 429, "20", null);

        Exchange answer = host.createProducerTemplate().request("direct:ask", e -> e.getMessage().setBody(Map.of(
                "messages", List.of(Map.of("role", "user", "content", "hi")))));

        assertThat(answer.getException()).isNull();
        assertThat(answer.getMessage().getBody(String.class)).isEqualTo("no answer: 503 no_channel_available");
    }
}
