package dev.keypool.it;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.openai.OpenAiChatModel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Two tenants drive the gateway at once through client libraries nobody here wrote, each with its own token as its
 * API key: LangChain4j's OpenAiChatModel, and the official OpenAI Java SDK to read the x-ratelimit-* headers. Each
 * sees its own limits only.
 */
class TenantClientsTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-shared-1
                      - key: sk-small-own
                        tenant: small
                tenants:
                  - name: small
                    token: token-small
                    rpm: 60
                    burst: 3
                  - name: large
                    token: token-large
                    rpm: 600
                    burst: 100
                    tpm: 100000
                queue:
                  maxWait: 0s
                """;
    }

    private OpenAiChatModel langchain4j(String token) {
        return OpenAiChatModel.builder().baseUrl(url("/v1")).apiKey(token).modelName("gpt-4o-mini").maxRetries(0).build();
    }

    private OpenAIClient sdk(String token) {
        return OpenAIOkHttpClient.builder().baseUrl(url("/v1")).apiKey(token).maxRetries(0).build();
    }

    @Test
    void should_give_each_tenant_its_own_limits_when_both_call_at_once() throws Exception {
        OpenAiChatModel small = langchain4j("token-small");
        OpenAiChatModel large = langchain4j("token-large");
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<Boolean>> smallCalls = new ArrayList<>();
            List<CompletableFuture<Boolean>> largeCalls = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                smallCalls.add(CompletableFuture.supplyAsync(() -> served(small), callers));
                largeCalls.add(CompletableFuture.supplyAsync(() -> served(large), callers));
            }
            // the clock stands still: small's bucket of 3 refills nothing, large's bucket of 100 is far from empty
            assertThat(smallCalls.stream().filter(CompletableFuture::join).count()).isEqualTo(3);
            assertThat(largeCalls.stream().filter(CompletableFuture::join).count()).isEqualTo(6);
        } finally {
            callers.shutdownNow();
        }
        // small's own key served it; large has none and used the shared key only
        assertThat(upstream.hits("sk-small-own")).isEqualTo(3);
        assertThat(upstream.hits("sk-shared-1")).isEqualTo(6);
    }

    @Test
    void should_report_each_tenants_own_limits_in_the_sdk_headers() {
        OpenAIClient small = sdk("token-small");
        OpenAIClient large = sdk("token-large");
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model("gpt-4o-mini")
                .addUserMessage("Say hi").build();

        try (HttpResponseFor<ChatCompletion> s = small.chat().completions().withRawResponse().create(params);
             HttpResponseFor<ChatCompletion> l = large.chat().completions().withRawResponse().create(params)) {
            assertThat(s.headers().values("x-ratelimit-limit-requests")).containsExactly("60");
            assertThat(s.headers().values("x-ratelimit-remaining-requests")).containsExactly("2");
            assertThat(s.headers().values("x-ratelimit-limit-tokens")).isEmpty();
            assertThat(s.headers().values("X-KeyPool-Pool")).containsExactly("own");
            assertThat(l.headers().values("x-ratelimit-limit-requests")).containsExactly("600");
            assertThat(l.headers().values("x-ratelimit-remaining-requests")).containsExactly("99");
            assertThat(l.headers().values("x-ratelimit-limit-tokens")).containsExactly("100000");
            assertThat(l.headers().values("X-KeyPool-Pool")).containsExactly("shared");
            assertThat(s.parse().choices().get(0).message().content()).hasValueSatisfying(text -> assertThat(text).startsWith("fake answer"));
        }
        small.chat().completions().create(params);
        small.chat().completions().create(params);
        Throwable refused = catchThrowable(() -> small.chat().completions().create(params));
        assertThat(refused).isInstanceOf(RateLimitException.class);
        assertThat(((RateLimitException) refused).headers().values("Retry-After")).containsExactly("1");
        assertThat(((RateLimitException) refused).code()).contains("tenant_rate_limited");
        // large is not affected by small being refused
        assertThat(large.chat().completions().create(params).choices()).hasSize(1);
    }

    private static boolean served(OpenAiChatModel model) {
        try {
            return model.chat(UserMessage.from("Say hi")).aiMessage().text().startsWith("fake answer");
        } catch (RuntimeException refused) {
            // LangChain4j's RateLimitException for a 429
            assertThat(refused.getClass().getSimpleName()).isEqualTo("RateLimitException");
            return false;
        }
    }
}
