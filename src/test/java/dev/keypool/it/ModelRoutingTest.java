package dev.keypool.it;

import java.net.http.HttpResponse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/** Model routing of design §2: first serving channel, modelMap renames, channel/model pins, /v1/models, embeddings. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ModelRoutingTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [alpha-chat, shared-model]
                    modelMap: {gpt-4o-mini: alpha-chat}
                    keys:
                      - key: sk-alpha-1
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [beta-chat, shared-model, beta-embed]
                    keys:
                      - key: sk-beta-1
                """;
    }

    @Test
    void should_route_a_model_to_the_first_channel_that_serves_it() throws Exception {
        HttpResponse<String> shared = chat("shared-model");
        HttpResponse<String> beta = chat("beta-chat");

        assertThat(shared.headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        assertThat(beta.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(upstream.received()).extracting(r -> r.key()).containsExactly("sk-alpha-1", "sk-beta-1");
    }

    @Test
    void should_rename_the_model_upstream_by_model_map() throws Exception {
        HttpResponse<String> r = chat("gpt-4o-mini");

        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        JsonNode sent = JSON.readTree(upstream.received().get(0).body());
        assertThat(sent.get("model").asText()).isEqualTo("alpha-chat");
        assertThat(sent.get("messages").get(0).get("content").asText()).isEqualTo("hi");
    }

    @Test
    void should_pin_the_channel_with_a_channel_prefix() throws Exception {
        HttpResponse<String> r = chat("beta/shared-model");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(JSON.readTree(upstream.received().get(0).body()).get("model").asText()).isEqualTo("shared-model");
    }

    @Test
    void should_list_the_models_of_all_channels() throws Exception {
        HttpResponse<String> r = get("/v1/models");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode list = JSON.readTree(r.body());
        assertThat(list.get("object").asText()).isEqualTo("list");
        assertThat(list.get("data")).extracting(m -> m.get("id").asText())
                .containsExactly("alpha-chat", "shared-model", "gpt-4o-mini", "beta-chat", "beta-embed");
        assertThat(list.get("data").get(3).get("owned_by").asText()).isEqualTo("beta");
    }

    @Test
    void should_serve_embeddings_through_the_pool() throws Exception {
        HttpResponse<String> r = post("/v1/embeddings", "{\"model\":\"beta-embed\",\"input\":\"hello\"}");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"object\":\"embedding\"");
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(upstream.received().get(0).path()).isEqualTo("/v1/embeddings");
    }
}
