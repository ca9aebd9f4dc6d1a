package dev.keypool.it;

import java.net.http.HttpResponse;

import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An Azure OpenAI channel ({@code type: azure}) behind the OpenAI surface: each call goes to its model's deployment
 * path (Responses to the resource's, the deployment as its model) with {@code api-version}, and the key in
 * {@code api-key}. The fake answers only requests shaped so (401, 400 or 404 otherwise).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AzureChannelTest extends GatewayTestSupport {

    private static final String KEY = "azure-key-0123456789abcdef";

    {
        upstream.azure("2024-10-21");
    }

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: azure
                    type: azure
                    baseUrl: ORIGIN
                    apiVersion: 2024-10-21
                    models: [gpt-4o, text-embedding-3-small]
                    modelMap: {text-embedding-3-small: embed-small}
                    deployments: {gpt-4o: my-gpt4o, embed-small: my-embeddings}
                    apis: [chat, embeddings, responses]
                    keys:
                      - key: KEY
                """.replace("ORIGIN", upstream.origin()).replace("KEY", KEY);
    }

    @Test
    void should_call_the_deployment_with_the_api_version_and_the_key_in_api_key() throws Exception {
        HttpResponse<String> answer = chat("gpt-4o");

        assertThat(answer.statusCode()).isEqualTo(200);
        FakeUpstream.Received call = upstream.received().get(0);
        assertThat(call.path()).isEqualTo("/openai/deployments/my-gpt4o/chat/completions");
        assertThat(call.query()).isEqualTo("api-version=2024-10-21");
        assertThat(call.headers().get("api-key")).isEqualTo(KEY);
        assertThat(call.headers().contains("Authorization")).isFalse();
        assertThat(answer.headers().firstValue("X-KeyPool-Model")).contains("gpt-4o");
    }

    @Test
    void should_stream_from_the_deployment() throws Exception {
        HttpResponse<String> answer = post("/v1/chat/completions",
                "{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("data: [DONE]");
        FakeUpstream.Received call = upstream.received().get(0);
        assertThat(call.path()).isEqualTo("/openai/deployments/my-gpt4o/chat/completions");
        assertThat(call.query()).isEqualTo("api-version=2024-10-21");
        assertThat(call.headers().get("api-key")).isEqualTo(KEY);
    }

    @Test
    void should_find_the_deployment_after_model_map() throws Exception {
        HttpResponse<String> answer = post("/v1/embeddings", "{\"model\":\"text-embedding-3-small\",\"input\":\"hi\"}");

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(upstream.received().get(0).path()).isEqualTo("/openai/deployments/my-embeddings/embeddings");
    }

    @Test
    void should_send_responses_to_the_resource_with_the_deployment_as_model() throws Exception {
        HttpResponse<String> answer = post("/v1/responses", "{\"model\":\"gpt-4o\",\"input\":\"Say hi\"}");

        assertThat(answer.statusCode()).isEqualTo(200);
        FakeUpstream.Received call = upstream.received().get(0);
        assertThat(call.path()).isEqualTo("/openai/responses");
        assertThat(call.query()).isEqualTo("api-version=2024-10-21");
        assertThat(call.body()).contains("\"model\":\"my-gpt4o\"");
    }

    @Test
    void should_never_log_the_key() throws Exception {
        assertThat(chat("gpt-4o").statusCode()).isEqualTo(200);

        assertThat(logs.all()).doesNotContain(KEY);
    }
}
