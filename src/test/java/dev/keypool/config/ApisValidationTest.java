package dev.keypool.config;

import java.util.Set;

import org.junit.jupiter.api.Test;

import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

/** channels[].apis (design §14): which OpenAI APIs a channel serves, validated with its path like every field. */
class ApisValidationTest {

    private static String channel(String apis) {
        return """
                channels:
                  - name: zhipu
                    baseUrl: https://example.com/v1
                    models: [glm-4]
                    keys:
                      - key: k1
                """ + (apis == null ? "" : "    apis: " + apis + "\n");
    }

    @Test
    void should_report_an_unknown_api_and_an_empty_list_with_their_paths() {
        assertThat(problemsOf(channel("[chat, respones]")))
                .containsExactly("channels[0].apis[1]: unknown API 'respones' (use chat, responses, embeddings, "
                        + "completions, moderations, images, audio, rerank, messages)");
        assertThat(problemsOf(channel("[]"))).containsExactly("channels[0].apis: must not be empty");
        assertThat(problemsOf(channel("responses"))).containsExactly("channels[0].apis: must be a list");
    }

    @Test
    void should_serve_chat_embeddings_and_completions_by_default() {
        assertThat(Api.DEFAULT).isEqualTo(Set.of(Api.CHAT, Api.EMBEDDINGS, Api.COMPLETIONS));
        assertThat(ConfigFixtures.parse(channel(null)).channels().get(0).apis()).isEqualTo(Api.DEFAULT);
        ChannelConfig audio = ConfigFixtures.parse(channel("[responses, audio]")).channels().get(0);
        assertThat(audio.apis()).containsExactlyInAnyOrder(Api.RESPONSES, Api.AUDIO);
        assertThat(audio.servesApi(Api.CHAT)).isFalse();
    }
}
