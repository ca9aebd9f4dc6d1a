package dev.keypool.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.RequestLogRows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GET /admin/requests pages through the request log, newest first, filtered by tenant, status, model and time.
 * One gateway for the class: the other test asks only for refusals, which add no row.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminRequestsTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: zhipu
                    baseUrl: UPSTREAM
                    models: [glm-4-flash]
                    keys:
                      - key: sk-zhipu-1
                admin:
                  token: admin-secret
                """;
    }

    @Test
    void should_page_through_the_rows_newest_first_and_filter_them() throws Exception {
        String first = chat("glm-4-flash").headers().firstValue("X-Request-Id").orElseThrow();
        String refused = chat("no-such-model").headers().firstValue("X-Request-Id").orElseThrow();
        String last = chat("glm-4-flash").headers().firstValue("X-Request-Id").orElseThrow();
        RequestLogRows.sqlite(context.getPropertiesComponent().resolveProperty("state.dir").orElseThrow()).await(3);

        JsonNode page1 = JSON.readTree(getWithToken("/admin/requests?limit=2", "admin-secret").body());
        assertThat(page1.path("requests").findValuesAsText("requestId")).containsExactly(last, refused);
        JsonNode page2 = JSON.readTree(getWithToken("/admin/requests?limit=2&cursor="
                + page1.path("nextCursor").asText(), "admin-secret").body());
        assertThat(page2.path("requests").findValuesAsText("requestId")).containsExactly(first);
        assertThat(page2.path("nextCursor").isNull()).isTrue();

        JsonNode errors = JSON.readTree(getWithToken("/admin/requests?status=404", "admin-secret").body());
        assertThat(errors.path("requests").findValuesAsText("requestId")).containsExactly(refused);
        assertThat(errors.path("requests").get(0).path("errorCode").asText()).isEqualTo("model_not_found");
        JsonNode future = JSON.readTree(getWithToken("/admin/requests?from=" + clock.instant().plusSeconds(1), "admin-secret").body());
        assertThat(future.path("requests")).isEmpty();
    }

    @Test
    void should_refuse_bad_parameters_and_callers_without_the_token() throws Exception {
        assertThat(getWithToken("/admin/requests?limit=0", "admin-secret").statusCode()).isEqualTo(400);
        assertThat(getWithToken("/admin/requests?from=yesterday", "admin-secret").body()).contains("invalid_parameter");
        assertThat(getWithToken("/admin/requests", "wrong").statusCode()).isEqualTo(401);
    }
}
