package dev.keypool.gateway;

import dev.keypool.config.Api;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PassthroughPathsTest {

    @Test
    void should_read_json_and_multipart_entries() {
        assertThat(PassthroughPaths.parse(" completions=completions, /v1/audio/transcriptions=audio multipart,"
                + " embeddings/multimodal=embeddings ,"))
                .containsExactly(
                        new PassthroughPaths.Entry("completions", Api.COMPLETIONS, PassthroughPaths.Shape.JSON),
                        new PassthroughPaths.Entry("audio/transcriptions", Api.AUDIO, PassthroughPaths.Shape.MULTIPART),
                        new PassthroughPaths.Entry("embeddings/multimodal", Api.EMBEDDINGS, PassthroughPaths.Shape.JSON));
        assertThat(PassthroughPaths.parse("")).isEmpty();
        assertThat(new PassthroughPaths.Entry("audio/speech", Api.AUDIO, PassthroughPaths.Shape.JSON).id()).isEqualTo("audio-speech");
    }

    @Test
    void should_name_every_bad_entry() {
        assertThatThrownBy(() -> PassthroughPaths.parse("rerank, x=videos, responses=responses, a b=chat, "
                + "moderations=moderations, moderations=moderations, y=audio form, messages=messages, v1/complete=messages"))
                .hasMessage("Invalid keypool.passthrough-paths: "
                        + "'rerank': expected path=api or path=api multipart, api one of chat, responses, embeddings, completions, moderations, images, audio, rerank, messages; "
                        + "'x=videos': expected path=api or path=api multipart, api one of chat, responses, embeddings, completions, moderations, images, audio, rerank, messages; "
                        + "'responses=responses': /v1/responses has its own route; "
                        + "'a b=chat': the path must be like audio/speech (what follows /v1/); "
                        + "'moderations=moderations': /v1/moderations is listed twice; "
                        + "'y=audio form': expected path=api or path=api multipart, api one of chat, responses, embeddings, completions, moderations, images, audio, rerank, messages; "
                        + "'messages=messages': /v1/messages has its own route; "
                        + "'v1/complete=messages': the messages API is served by routes/messages.camel.yaml only");
    }
}
