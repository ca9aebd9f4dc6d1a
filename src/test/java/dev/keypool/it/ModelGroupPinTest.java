package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code channel/group} pin (design §2, §16) walks the group with its target on that channel first, sending that
 * target's model; a tenant's {@code models} patterns name the group, its {@code channels} the pinned channel.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ModelGroupPinTest extends ModelGroupTestSupport {

    @Override
    protected List<String> channels() {
        return List.of("alpha", "beta", "gamma");
    }

    @Override
    protected String groups() {
        return """
                modelGroups:
                  - name: team-chat
                    targets:
                      - {channel: beta, model: beta-chat, weight: 1000}
                      - {channel: alpha, model: alpha-big, weight: 1}
                tenants:
                  - name: groups-only
                    token: tok-pin-groups
                    models: ["team-*"]
                  - name: beta-only
                    token: tok-pin-beta
                    channels: [beta]
                """;
    }

    /** alpha serves a second model, which the group's target names: a pin must send the target's model, not the first. */
    @Override
    protected String channelYaml(String name) {
        return name.equals("alpha") ? super.channelYaml(name).replace("[alpha-chat]", "[alpha-chat, alpha-big]") : super.channelYaml(name);
    }

    @Test
    void should_send_the_pinned_channels_target_model() throws Exception {
        HttpResponse<String> answer = chatAs("tok-pin-groups", "alpha/team-chat");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        // the group's target on alpha, not alpha's first model
        assertThat(answer.headers().firstValue("X-KeyPool-Model")).contains("alpha-big");
        assertThat(upstream.received().get(upstream.received().size() - 1).body()).contains("\"model\":\"alpha-big\"");
        assertThat(answer.headers().firstValue("X-Fallback-Level")).contains("0");
    }

    @Test
    void should_walk_the_rest_of_the_group_after_the_pinned_target() throws Exception {
        upstream.answer("sk-alpha-1", 503);

        HttpResponse<String> answer = chatAs("tok-pin-groups", "alpha/team-chat");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(answer.headers().firstValue("X-KeyPool-Model")).contains("beta-chat");
        assertThat(answer.headers().firstValue("X-Fallback-Level")).contains("1");
    }

    @Test
    void should_refuse_a_pin_on_a_channel_without_a_target_of_the_group() throws Exception {
        HttpResponse<String> answer = chatAs("tok-pin-groups", "gamma/team-chat");

        assertThat(answer.statusCode()).isEqualTo(404);
        assertThat(answer.body()).contains("model_not_found").contains("gamma/team-chat");
        assertThat(upstream.totalHits()).isZero();
    }

    @Test
    void should_refuse_a_tenant_a_pinned_channel_it_may_not_use() throws Exception {
        HttpResponse<String> refused = chatAs("tok-pin-beta", "alpha/team-chat");
        HttpResponse<String> allowed = chatAs("tok-pin-beta", "beta/team-chat");

        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("model_not_allowed");
        assertThat(allowed.statusCode()).as(allowed.body()).isEqualTo(200);
        assertThat(allowed.headers().firstValue("X-KeyPool-Model")).contains("beta-chat");
    }

    @Test
    void should_match_a_tenants_models_pattern_against_the_pinned_group() throws Exception {
        HttpResponse<String> group = chatAs("tok-pin-groups", "beta/team-chat");
        HttpResponse<String> plainModel = chatAs("tok-pin-groups", "beta/beta-chat");

        assertThat(group.statusCode()).as(group.body()).isEqualTo(200);
        assertThat(plainModel.statusCode()).isEqualTo(403);
        assertThat(plainModel.body()).contains("model_not_allowed");
    }
}
