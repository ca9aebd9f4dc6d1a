package dev.keypool.it;

import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.keypool.testing.RequestLogRows;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code requestLog.bodies: true} each row keeps the client's request body and the answer (a stream's assembled
 * text), each cut at keypool.request-log.body-max-bytes (here 400); never a tenant's token or a provider key.
 * The tests share one gateway, each reading the rows written since it began.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestLogBodiesTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: zhipu
                    baseUrl: UPSTREAM
                    models: [glm-4-flash]
                    keys:
                      - key: sk-zhipu-secret-1
                tenants:
                  - name: acme
                    token: acme-tenant-token-secret
                requestLog:
                  bodies: true
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.request-log.body-max-bytes", "400");
        return p;
    }

    @Test
    void should_keep_the_request_and_its_answer_but_no_token_or_key() throws Exception {
        assertThat(postAs("acme-tenant-token-secret", "{\"model\":\"glm-4-flash\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"what is in my-kept-prompt\"}]}").statusCode()).isEqualTo(200);

        Map<String, Object> row = rows(1).get(0);

        assertThat((String) row.get("request_body")).contains("what is in my-kept-prompt");
        assertThat((String) row.get("answer_body")).contains("fake answer").contains("\"usage\"");
        assertThat(row.toString()).doesNotContain("acme-tenant-token-secret", "sk-zhipu-secret-1");
    }

    @Test
    void should_keep_a_streams_assembled_text() throws Exception {
        assertThat(postAs("acme-tenant-token-secret", "{\"model\":\"glm-4-flash\",\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"stream it\"}]}").statusCode()).isEqualTo(200);

        Map<String, Object> row = rows(1).get(0);

        assertThat((String) row.get("request_body")).contains("stream it");
        assertThat((String) row.get("answer_body")).startsWith("tok0 tok1 ").doesNotContain("data:");
    }

    @Test
    void should_cut_a_body_at_the_cap() throws Exception {
        String prompt = "x".repeat(1000);
        assertThat(postAs("acme-tenant-token-secret", "{\"model\":\"glm-4-flash\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"" + prompt + "\"}]}").statusCode()).isEqualTo(200);

        String kept = (String) rows(1).get(0).get("request_body");

        assertThat(kept).hasSize(400).startsWith("{\"model\":\"glm-4-flash\"");
    }

    @Test
    void should_keep_the_request_of_a_refused_request_and_no_answer() throws Exception {
        assertThat(postAs("acme-tenant-token-secret", "{\"model\":\"no-such-model\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"lost prompt\"}]}").statusCode()).isEqualTo(404);

        Map<String, Object> row = rows(1).get(0);

        assertThat((String) row.get("request_body")).contains("lost prompt");
        assertThat(row.get("answer_body")).isNull();
    }

    /** The rows this test's requests wrote, once there are at least {@code count}. */
    private List<Map<String, Object>> rows(int count) {
        return requestLog().awaitSince(rowsBefore, count);
    }

    private RequestLogRows requestLog() {
        return RequestLogRows.sqlite(context.getPropertiesComponent().resolveProperty("state.dir").orElseThrow());
    }

    private int rowsBefore;

    /** The rows of the tests before this one (each waits for all of its own rows before it ends). */
    @BeforeEach
    void countEarlierRows() {
        rowsBefore = requestLog().all().size();
    }
}
