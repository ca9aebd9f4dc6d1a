package dev.keypool.it;

import java.util.ArrayList;
import java.util.List;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponse;
import com.openai.core.http.StreamResponse;
import com.openai.models.audio.speech.SpeechCreateParams;
import com.openai.models.audio.transcriptions.TranscriptionCreateParams;
import com.openai.models.audio.transcriptions.TranscriptionCreateResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.EmbeddingCreateParams;
import com.openai.models.images.ImageGenerateParams;
import com.openai.models.images.ImagesResponse;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStreamEvent;
import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official OpenAI Java SDK (com.openai:openai-java) speaks OpenAI to the gateway, whose channel is Azure OpenAI: the
 * fake answers only Azure-shaped calls (deployment path, {@code api-version}, the key in {@code api-key}), so every
 * answer the SDK reads here went out as Azure takes it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AzureOpenAiSdkTest extends GatewayTestSupport {

    private final OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(url("/v1")).apiKey("client-token")
            .maxRetries(0).build();

    {
        upstream.azure("2025-04-01-preview");
    }

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: azure
                    type: azure
                    baseUrl: ORIGIN
                    apiVersion: 2025-04-01-preview
                    models: [gpt-4o, text-embedding-3-small, dall-e-3, whisper-1, tts-1]
                    deployments: {gpt-4o: chat-dep, text-embedding-3-small: embed-dep, dall-e-3: image-dep,
                                  whisper-1: stt-dep, tts-1: tts-dep}
                    apis: [chat, embeddings, responses, images, audio]
                    keys:
                      - key: azure-sdk-key
                """.replace("ORIGIN", upstream.origin());
    }

    @AfterAll
    void closeClient() {
        client.close();
    }

    @Test
    void should_chat() {
        ChatCompletion chat = client.chat().completions().create(
                ChatCompletionCreateParams.builder().model("gpt-4o").addUserMessage("Say hi").build());

        assertThat(chat.choices()).hasSize(1);
        assertCalled("/openai/deployments/chat-dep/chat/completions");
    }

    @Test
    void should_stream_a_chat() {
        List<String> deltas = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(
                ChatCompletionCreateParams.builder().model("gpt-4o").addUserMessage("Say hi").build())) {
            stream.stream().forEach(chunk -> chunk.choices().forEach(c -> c.delta().content().ifPresent(deltas::add)));
        }

        assertThat(deltas).isNotEmpty();
        assertCalled("/openai/deployments/chat-dep/chat/completions");
    }

    @Test
    void should_embed() {
        CreateEmbeddingResponse embeddings = client.embeddings().create(
                EmbeddingCreateParams.builder().model("text-embedding-3-small").input("hi").build());

        assertThat(embeddings.data()).isNotEmpty();
        assertCalled("/openai/deployments/embed-dep/embeddings");
    }

    @Test
    void should_create_and_stream_a_response() {
        Response response = client.responses().create(ResponseCreateParams.builder().model("gpt-4o").input("Say hi").build());
        assertThat(response.id()).startsWith("resp_fake_");
        assertCalled("/openai/responses");
        assertThat(upstream.received().get(0).body()).contains("\"model\":\"chat-dep\"");

        upstream.clear();
        List<String> deltas = new ArrayList<>();
        try (StreamResponse<ResponseStreamEvent> stream = client.responses()
                .createStreaming(ResponseCreateParams.builder().model("gpt-4o").input("Say hi").build())) {
            stream.stream().forEach(event -> event.outputTextDelta().ifPresent(d -> deltas.add(d.delta())));
        }
        assertThat(deltas).isNotEmpty();
        assertCalled("/openai/responses");
    }

    @Test
    void should_generate_an_image() {
        ImagesResponse images = client.images().generate(ImageGenerateParams.builder().model("dall-e-3").prompt("a cat").build());

        assertThat(images.data().orElseThrow()).isNotEmpty();
        assertCalled("/openai/deployments/image-dep/images/generations");
    }

    @Test
    void should_speak_and_transcribe() throws Exception {
        try (HttpResponse speech = client.audio().speech().create(
                SpeechCreateParams.builder().model("tts-1").input("hello").voice("alloy").build())) {
            assertThat(speech.body().readAllBytes()).isEqualTo(FakeUpstream.SPEECH);
        }
        assertCalled("/openai/deployments/tts-dep/audio/speech");

        upstream.clear();
        TranscriptionCreateResponse transcription = client.audio().transcriptions().create(
                TranscriptionCreateParams.builder().model("whisper-1").file(OpenAiSurfaceTest.wav(4000)).build());
        assertThat(transcription.transcription().orElseThrow().text()).endsWith("by azure-sdk-key");
        assertCalled("/openai/deployments/stt-dep/audio/transcriptions");
    }

    private void assertCalled(String path) {
        FakeUpstream.Received call = upstream.received().get(0);
        assertThat(call.path()).isEqualTo(path);
        assertThat(call.query()).isEqualTo("api-version=2025-04-01-preview");
        assertThat(call.headers().get("api-key")).isEqualTo("azure-sdk-key");
    }
}
