package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A model group's tier 2 serves only while no tier-1 target is usable, and tier 1 takes over again (design §16). */
class ModelGroupTiersTest extends ModelGroupTestSupport {

    @Override
    protected List<String> channels() {
        return List.of("alpha", "beta", "local");
    }

    @Override
    protected String groups() {
        return """
                modelGroups:
                  - name: chat-default
                    targets:
                      - {channel: alpha, model: alpha-chat, weight: 3}
                      - {channel: beta, model: beta-chat, weight: 1}
                      - {channel: local, model: local-chat, tier: 2}
                """;
    }

    @Test
    void should_serve_from_tier_2_only_while_every_tier_1_target_is_unusable_and_back() throws Exception {
        for (int i = 0; i < 30; i++) {
            assertThat(chat("chat-default").headers().firstValue("X-KeyPool-Channel")).isNotEqualTo("local");
        }

        forceBreaker("alpha", "OPEN");
        for (int i = 0; i < 10; i++) {
            HttpResponse<String> r = chat("chat-default");
            assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("beta");
            assertThat(r.headers().firstValue("X-Fallback-Level")).contains("0");
        }

        forceBreaker("beta", "OPEN");
        HttpResponse<String> tier2 = chat("chat-default");
        assertThat(tier2.statusCode()).isEqualTo(200);
        assertThat(tier2.headers().firstValue("X-KeyPool-Channel")).contains("local");
        assertThat(tier2.headers().firstValue("X-KeyPool-Model")).contains("local-chat");
        // alpha and beta walked past
        assertThat(tier2.headers().firstValue("X-Fallback-Level")).contains("2");

        forceBreaker("alpha", "CLOSED");
        HttpResponse<String> back = chat("chat-default");
        assertThat(back.headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        assertThat(back.headers().firstValue("X-KeyPool-Model")).contains("alpha-chat");
        assertThat(back.headers().firstValue("X-Fallback-Level")).contains("0");
    }
}
