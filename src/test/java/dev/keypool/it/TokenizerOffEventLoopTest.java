package dev.keypool.it;

import java.time.Duration;

import dev.keypool.quota.TokenEstimator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With a token limit, the tokenizer's encodings load at start on a thread of their own, never on the event loop a
 * request's route runs on: loading them takes tens of milliseconds or more, which would hold every other connection of
 * that loop meanwhile.
 */
class TokenizerOffEventLoopTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: counted
                    baseUrl: UPSTREAM
                    models: [gpt-counted]
                    keys:
                      - key: sk-counted
                        tpm: 1000000
                """;
    }

    @Test
    void should_load_the_tokenizer_off_the_event_loops_when_a_key_has_a_token_limit() throws Exception {
        // the key's token limit counts this request's prompt
        assertThat(chat("gpt-counted").statusCode()).isEqualTo(200);

        // the start's load may still run: a request counted meanwhile loads its own encoding off the event loop
        TokenEstimator tokens = context.getRegistry().lookupByNameAndType("tokenEstimator", TokenEstimator.class);
        await().atMost(Duration.ofSeconds(20)).until(tokens::loaded);
        assertThat(tokens.loadedOn()).doesNotStartWith("vert.x-eventloop-thread-");
    }
}
