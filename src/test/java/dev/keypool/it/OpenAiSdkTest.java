package dev.keypool.it;

import java.util.ArrayList;
import java.util.List;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponse;
import com.openai.core.http.StreamResponse;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.images.ImageGenerateParams;
import com.openai.models.images.ImagesResponse;
import com.openai.models.moderations.ModerationCreateParams;
import com.openai.models.moderations.ModerationCreateResponse;
import com.openai.models.audio.speech.SpeechCreateParams;
import com.openai.models.audio.transcriptions.TranscriptionCreateParams;
import com.openai.models.audio.transcriptions.TranscriptionCreateResponse;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStreamEvent;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyState;
import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official OpenAI Java SDK (com.openai:openai-java) against the gateway, a client nobody here wrote. In every
 * test the pool's first key answers 429: the SDK never sees it, the gateway cools that key and serves with the next.
 * The tests share one gateway, each on a primary channel of its own (its keys' states are the test's alone).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenAiSdkTest extends GatewayTestSupport {

    private OpenAIClient client;

    /** Each test's own primary channel, named after it and serving one model of the same name, with backup behind it. */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("""
                channels:
                  - name: backup
                    baseUrl: UPSTREAM
                    models: [backup-model]
                    apis: [responses, audio]
                    keys:
                      - key: sk-backup
                """);
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        apis: [chat, responses, completions, moderations, images, audio]
                        maxRetries: 2
                        fallback: [backup]
                        keys:
                          - key: sk-limited
                          - key: sk-good
                    """.formatted(test));
        }
        return yaml.toString();
    }

    private OpenAIClient client() {
        if (client == null) {
            // no retries of its own: what the test sees is what the gateway did
            client = OpenAIOkHttpClient.builder().baseUrl(url("/v1")).apiKey("client-token").maxRetries(0).build();
        }
        upstream.answer("sk-limited", 429, "30", null);
        return client;
    }

    @AfterEach
    void closeClient() {
        if (client != null) {
            client.close();
            client = null;
        }
    }

    @Test
    void should_create_a_response() {
        Response response = client().responses().create(ResponseCreateParams.builder().model(testName()).input("Say hi").build());

        assertThat(response.id()).startsWith("resp_fake_");
        assertThat(response.usage().orElseThrow().outputTokens()).isEqualTo(7);
        assertRotatedPastTheLimitedKey();
        assertThat(key("sk-good").stats().promptTokens()).isEqualTo(11);
        assertThat(key("sk-good").stats().completionTokens()).isEqualTo(7);
    }

    @Test
    void should_stream_a_response_with_every_delta_and_count_its_usage() {
        upstream.streamEvents(8, 5);
        List<String> deltas = new ArrayList<>();
        List<Long> outputTokens = new ArrayList<>();

        try (StreamResponse<ResponseStreamEvent> stream = client().responses()
                .createStreaming(ResponseCreateParams.builder().model(testName()).input("Say hi").build())) {
            stream.stream().forEach(event -> {
                event.outputTextDelta().ifPresent(d -> deltas.add(d.delta()));
                event.completed().ifPresent(c -> outputTokens.add(c.response().usage().orElseThrow().outputTokens()));
                assertThat(event.isError()).isFalse();
            });
        }

        assertThat(deltas).containsExactly("tok0 ", "tok1 ", "tok2 ", "tok3 ", "tok4 ", "tok5 ", "tok6 ", "tok7 ");
        assertThat(outputTokens).containsExactly(8L);
        assertRotatedPastTheLimitedKey();
        ApiKey good = key("sk-good");
        assertThat(good.stats().promptTokens()).isEqualTo(11);
        assertThat(good.stats().completionTokens()).isEqualTo(8);
        assertThat(good.stats().streamCount()).isEqualTo(1);
        assertThat(good.inFlight()).isZero();
    }

    @Test
    void should_fall_back_to_the_next_channel_serving_responses_when_the_primary_fails() {
        upstream.answer("sk-good", 503);

        Response response = client().responses().create(ResponseCreateParams.builder().model(testName()).input("Say hi").build());

        assertThat(response.id()).startsWith("resp_fake_");
        assertThat(upstream.hits("sk-limited")).isEqualTo(1);
        assertThat(upstream.hits("sk-good")).isEqualTo(1);
        assertThat(upstream.hits("sk-backup")).isEqualTo(1);
        // the backup channel is asked under its own model name
        assertThat(upstream.received().get(2).body()).contains("\"model\":\"backup-model\"");
    }

    @Test
    void should_create_a_legacy_completion() {
        Completion completion = client().completions().create(CompletionCreateParams.builder().model(testName()).prompt("Say hi").build());

        assertThat(completion.choices().get(0).text()).startsWith("fake completion");
        assertRotatedPastTheLimitedKey();
        assertThat(key("sk-good").stats().completionTokens()).isEqualTo(4);
    }

    @Test
    void should_create_a_moderation() {
        ModerationCreateResponse moderation = client().moderations().create(
                ModerationCreateParams.builder().model(testName()).input("some text").build());

        assertThat(moderation.results().get(0).flagged()).isFalse();
        assertRotatedPastTheLimitedKey();
        assertThat(upstream.received().get(1).path()).isEqualTo("/v1/moderations");
    }

    @Test
    void should_generate_an_image() {
        ImagesResponse images = client().images().generate(ImageGenerateParams.builder().model(testName()).prompt("a cat").build());

        assertThat(images.data().orElseThrow().get(0).url()).hasValueSatisfying(u -> assertThat(u).startsWith("https://images.example/"));
        assertRotatedPastTheLimitedKey();
    }

    @Test
    void should_answer_speech_with_the_providers_bytes() throws Exception {
        byte[] audio;
        try (HttpResponse speech = client().audio().speech().create(
                SpeechCreateParams.builder().model(testName()).input("hello").voice("alloy").build())) {
            assertThat(speech.headers().values("Content-Type")).containsExactly("audio/mpeg");
            audio = speech.body().readAllBytes();
        }

        assertThat(audio).isEqualTo(FakeUpstream.SPEECH);
        assertRotatedPastTheLimitedKey();
    }

    @Test
    void should_transcribe_a_wav_upload_forwarded_unchanged() {
        byte[] wav = OpenAiSurfaceTest.wav(4000);

        TranscriptionCreateResponse transcription = client().audio().transcriptions().create(
                TranscriptionCreateParams.builder().model(testName()).file(wav).build());

        FakeUpstream.Received got = upstream.received().get(1);
        assertThat(transcription.transcription().orElseThrow().text())
                .isEqualTo("transcribed " + got.bytes().length + " bytes by sk-good");
        String contentType = got.headers().get("Content-Type");
        assertThat(contentType).startsWith("multipart/form-data;").contains("boundary=");
        // the SDK's own boundary reached the provider with its body
        String boundary = contentType.substring(contentType.indexOf("boundary=") + "boundary=".length());
        assertThat(new String(got.bytes(), java.nio.charset.StandardCharsets.ISO_8859_1)).startsWith("--" + boundary)
                .contains("name=\"model\"");
        // the retry sent the same upload again
        assertThat(got.bytes()).isEqualTo(upstream.received().get(0).bytes());
        assertThat(indexOf(got.bytes(), wav)).isPositive();
        assertRotatedPastTheLimitedKey();
    }

    private void assertRotatedPastTheLimitedKey() {
        assertThat(upstream.hits("sk-limited")).isEqualTo(1);
        assertThat(upstream.hits("sk-good")).isEqualTo(1);
        ApiKey limited = key("sk-limited");
        assertThat(channel(testName()).pool().stateOf(limited)).isEqualTo(KeyState.COOLING);
        assertThat(key("sk-good").stats().successCount()).isEqualTo(1);
    }

    /** A key of this test's channel. */
    private ApiKey key(String key) {
        return channel(testName()).pool().find(Fingerprint.of(key)).orElseThrow();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
