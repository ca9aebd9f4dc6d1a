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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kamelets packaged in the jar (kamelets/keypool-*-action.kamelet.yaml), used by a host route as
 * {@code kamelet:keypool-chat-action?model=...}: KeyPool's pipeline behind them, the KeyPool* headers on the answer, and a
 * KeyPoolException for the calling route's onException (a Kamelet uses its caller's error handler). The tests share one
 * host, each calling the Kamelets from routes of its own ({@code direct:ask-<test>}) for models of its own, served by
 * channels {@code <test>-main} and {@code <test>-backup} with keys of their own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyPoolKameletsTest {

    private static final List<String> TESTS = List.of("rate-limited", "fallback", "embed", "refused");

    private final FakeUpstream upstream = new FakeUpstream();
    private CamelContext host;

    /**
     * A test's channels: main (the test's chat and embeddings models, which the provider gets as gpt-4o-mini and
     * text-embedding-3-small) falling back to backup.
     */
    private static String channelsOf(String test) {
        return """
                  - name: %1$s-main
                    baseUrl: UPSTREAM
                    models: [gpt-4o-mini, text-embedding-3-small]
                    modelMap: {%1$s-chat: gpt-4o-mini, %1$s-embed: text-embedding-3-small}
                    fallback: [%1$s-backup]
                    keys:
                      - key: sk-main-429-%1$s
                      - key: sk-main-ok-%1$s
                  - name: %1$s-backup
                    baseUrl: UPSTREAM
                    models: [gpt-4o-mini]
                    modelMap: {%1$s-chat: gpt-4o-mini}
                    keys:
                      - key: sk-backup-1-%1$s
                """.formatted(test);
    }

    @BeforeAll
    void start() throws Exception {
        Path config = Files.createTempFile("keypool-kamelets-", ".yaml");
        config.toFile().deleteOnExit();
        StringBuilder yaml = new StringBuilder("channels:\n");
        TESTS.forEach(test -> yaml.append(channelsOf(test)));
        Files.writeString(config, yaml.toString().replace("UPSTREAM", upstream.baseUrl()));
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
                for (String test : TESTS) {
                    from("direct:ask-" + test).routeId("host-ask-" + test)
                            .to("kamelet:keypool-chat-action?model=" + test + "-chat");
                    from("direct:embed-" + test).routeId("host-embed-" + test)
                            .to("kamelet:keypool-embeddings-action?model=" + test + "-embed");
                }
            }
        });
        host.start();
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
    void should_answer_through_the_chat_kamelet_past_a_rate_limited_key() {
        upstream.answer("sk-main-429-rate-limited", 429);

        Exchange answer = host.createProducerTemplate().request("direct:ask-rate-limited", e -> e.getMessage().setBody("Say hi"));

        assertThat(answer.getMessage().getBody(String.class)).contains("\"chat.completion\"");
        assertThat(answer.getMessage().getHeaders()).containsEntry(KeyPoolConstants.CHANNEL, "rate-limited-main")
                .containsEntry(KeyPoolConstants.KEY, Fingerprint.of("sk-main-ok-rate-limited"))
                .containsEntry(KeyPoolConstants.ATTEMPTS, "2");
        assertThat(upstream.received().get(1).body()).contains("\"model\":\"gpt-4o-mini\"");
    }

    @Test
    void should_fall_back_to_the_next_channel_through_the_chat_kamelet() {
        upstream.answer("sk-main-429-fallback", 503).answer("sk-main-ok-fallback", 503);

        Exchange answer = host.createProducerTemplate().request("direct:ask-fallback", e -> e.getMessage().setBody("Say hi"));

        assertThat(answer.getMessage().getHeaders()).containsEntry(KeyPoolConstants.CHANNEL, "fallback-backup")
                .containsEntry(KeyPoolConstants.FALLBACK_LEVEL, "1");
    }

    @Test
    void should_embed_through_the_embeddings_kamelet() {
        Exchange answer = host.createProducerTemplate().request("direct:embed-embed", e -> e.getMessage().setBody("a text"));

        assertThat(answer.getMessage().getBody(String.class)).contains("\"embedding\"");
        assertThat(upstream.received().get(0).body()).contains("\"input\":\"a text\"").contains("\"model\":\"text-embedding-3-small\"");
    }

    @Test
    void should_give_the_calling_routes_onException_a_KeyPoolException() {
        upstream.answer("sk-main-429-refused", 429, "20", null).answer("sk-main-ok-refused", 429, "20", null)
                .answer("sk-backup-1-refused", 429, "20", null);

        Exchange answer = host.createProducerTemplate().request("direct:ask-refused", e -> e.getMessage().setBody(Map.of(
                "messages", List.of(Map.of("role", "user", "content", "hi")))));

        assertThat(answer.getException()).isNull();
        assertThat(answer.getMessage().getBody(String.class)).isEqualTo("no answer: 503 no_channel_available");
    }
}
