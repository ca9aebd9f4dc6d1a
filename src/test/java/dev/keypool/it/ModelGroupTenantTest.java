package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A tenant's {@code models} patterns name model groups as they name models (design §16). */
class ModelGroupTenantTest extends ModelGroupTestSupport {

    @Override
    protected List<String> channels() {
        return List.of("alpha");
    }

    @Override
    protected String groups() {
        return """
                modelGroups:
                  - name: team-chat
                    targets:
                      - {channel: alpha, model: alpha-chat}
                tenants:
                  - name: team-a
                    token: tok-team-a
                    models: ["team-*"]
                  - name: team-b
                    token: tok-team-b
                    models: [alpha-chat]
                """;
    }

    @Test
    void should_let_a_tenant_use_a_group_its_models_pattern_names() throws Exception {
        HttpResponse<String> allowed = chatAs("tok-team-a", "team-chat");
        HttpResponse<String> refused = chatAs("tok-team-b", "team-chat");

        assertThat(allowed.statusCode()).as(allowed.body()).isEqualTo(200);
        assertThat(allowed.headers().firstValue("X-KeyPool-Model")).contains("alpha-chat");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("model_not_allowed");
        assertThat(new ObjectMapper().readTree(getWithToken("/v1/models", "tok-team-a").body()).get("data"))
                .extracting(m -> m.get("id").asText()).containsExactly("team-chat");
    }
}
