package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** PATCH /admin/model-groups/{name} changes a group's weights for the next request (design §16). */
class ModelGroupWeightsTest extends ModelGroupTestSupport {

    @Override
    protected List<String> channels() {
        return List.of("alpha", "beta");
    }

    @Override
    protected String groups() {
        return """
                modelGroups:
                  - name: chat-default
                    targets:
                      - {channel: alpha, model: alpha-chat, weight: 1}
                      - {channel: beta, model: beta-chat, weight: 0}
                """;
    }

    @Test
    void should_send_the_next_requests_by_the_patched_weights() throws Exception {
        for (int i = 0; i < 20; i++) {
            assertThat(chat("chat-default").headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        }

        HttpResponse<String> patched = admin.call("PATCH", "/admin/model-groups/chat-default",
                "{\"weights\": {\"alpha\": 0, \"beta/beta-chat\": 5}}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        assertThat(patched.body()).contains("\"channel\":\"beta\",\"model\":\"beta-chat\",\"weight\":5");

        for (int i = 0; i < 20; i++) {
            assertThat(chat("chat-default").headers().firstValue("X-KeyPool-Channel")).contains("beta");
        }
        HttpResponse<String> unknownTarget = admin.call("PATCH", "/admin/model-groups/chat-default", "{\"weights\": {\"gamma\": 1}}");
        HttpResponse<String> negative = admin.call("PATCH", "/admin/model-groups/chat-default", "{\"weights\": {\"alpha\": -1}}");
        HttpResponse<String> unknownGroup = admin.call("PATCH", "/admin/model-groups/nope", "{\"weights\": {\"alpha\": 1}}");
        assertThat(unknownTarget.statusCode()).isEqualTo(400);
        assertThat(unknownTarget.body()).contains("'gamma' is no target of model group 'chat-default'");
        assertThat(negative.statusCode()).isEqualTo(400);
        assertThat(negative.body()).contains("weights.alpha must be an integer >= 0");
        assertThat(unknownGroup.statusCode()).isEqualTo(404);
    }
}
