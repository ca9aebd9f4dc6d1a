package dev.keypool.it;

import java.net.http.HttpResponse;

import dev.keypool.pool.Fingerprint;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Without admin.token the whole admin API, dashboard included, is off: 404. */
class AdminOffTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                """;
    }

    @Test
    void should_answer_404_to_every_admin_call() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        String key = Fingerprint.of("sk-alpha-1");
        for (String path : new String[] {"/admin/keys/" + key + "/disable", "/admin/keys/" + key + "/drain",
                "/admin/keys/" + key + "/enable", "/admin/channels/alpha/breaker", "/admin/reload"}) {
            HttpResponse<String> r = admin.post(path, "{}");
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            assertThat(r.body()).contains("\"code\":\"admin_disabled\"");
        }
        assertThat(admin.call("PATCH", "/admin/keys/" + key, "{\"weight\":2}").statusCode()).isEqualTo(404);
        assertThat(admin.get("/admin/events").statusCode()).isEqualTo(404);
        assertThat(admin.call("GET", "/admin/", null, null).statusCode()).isEqualTo(404);
        assertThat(admin.call("GET", "/admin/assets/dashboard.js", null, null).body()).contains("\"code\":\"admin_disabled\"");
    }
}
