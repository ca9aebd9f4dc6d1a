package dev.keypool.langchain4j;

import dev.keypool.component.KeyPoolException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.model.chat.ChatModel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The gateway's errors as LangChain4j's exceptions a caller tells apart, each with KeyPool's status and code in its
 * cause: 429 when no key has room (after the walk), 503 when no channel could serve, 400 passed back, 404.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyPoolChatModelErrorsTest {

    private LangChain4jHost host;

    @BeforeAll
    void start() throws Exception {
        host = new LangChain4jHost("""
                queue:
                  maxWait: 0
                channels:
                  - name: quota
                    baseUrl: UPSTREAM
                    models: [quota-model]
                    keys:
                      - key: sk-quota-1
                        rpm: 1
                  - name: down
                    baseUrl: UPSTREAM
                    models: [down-model]
                    keys:
                      - key: sk-down-1
                      - key: sk-down-2
                  - name: picky
                    baseUrl: UPSTREAM
                    models: [picky-model]
                    keys:
                      - key: sk-picky-1
                """);
    }

    @AfterAll
    void stop() {
        host.close();
    }

    @Test
    void should_raise_a_rate_limit_exception_when_no_key_has_room() {
        ChatModel model = host.chatModel("quota-model").build();
        assertThat(model.chat("first")).startsWith("fake answer");

        assertThatThrownBy(() -> model.chat("second")).isInstanceOf(RateLimitException.class)
                .hasMessageContaining("quota_exhausted")
                .cause().isInstanceOfSatisfying(KeyPoolException.class, e -> {
                    assertThat(e.getStatus()).isEqualTo(429);
                    assertThat(e.getRetryAfterSeconds()).isPositive();
                });
        assertThat(host.upstream.hits("sk-quota-1")).isEqualTo(1);
    }

    @Test
    void should_raise_an_internal_server_exception_when_no_channel_can_serve() {
        host.upstream.answer("sk-down-1", 503).answer("sk-down-2", 503);

        assertThatThrownBy(() -> host.chatModel("down-model").build().chat("hi"))
                .isInstanceOf(InternalServerException.class)
                .cause().isInstanceOfSatisfying(KeyPoolException.class, e -> {
                    assertThat(e.getStatus()).isEqualTo(503);
                    assertThat(e.getCode()).isEqualTo("no_channel_available");
                    assertThat(e.getMessage()).doesNotContain("sk-down");
                });
    }

    @Test
    void should_raise_an_invalid_request_exception_for_a_400_the_provider_passed_back() {
        host.upstream.answer("sk-picky-1", 400);

        assertThatThrownBy(() -> host.chatModel("picky-model").build().chat("hi"))
                .isInstanceOf(InvalidRequestException.class)
                .cause().isInstanceOfSatisfying(KeyPoolException.class, e -> assertThat(e.getStatus()).isEqualTo(400));
        // the request's own fault: the key is not blamed, so it was asked once
        assertThat(host.upstream.hits("sk-picky-1")).isEqualTo(1);
    }

    @Test
    void should_raise_a_model_not_found_exception_for_a_model_no_channel_serves() {
        assertThatThrownBy(() -> host.chatModel("no-such-model").build().chat("hi"))
                .isInstanceOf(ModelNotFoundException.class)
                .cause().isInstanceOfSatisfying(KeyPoolException.class, e -> assertThat(e.getCode()).isEqualTo("model_not_found"));
    }
}
