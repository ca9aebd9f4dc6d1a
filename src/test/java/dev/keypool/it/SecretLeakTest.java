package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Raw keys never leave the process: not in logs, responses, headers, status, metrics or exception messages. */
class SecretLeakTest extends GatewayTestSupport {

    private static final String KEY_1 = "sk-leak-SECRET-111111";
    private static final String KEY_2 = "sk-leak-SECRET-222222";
    private static final String KEY_3 = "sk-leak-SECRET-333333";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    disableAfter: 1
                    keys:
                      - key: %s
                      - key: %s
                      - key: %s
                admin:
                  token: admin-test-token
                """.formatted(KEY_1, KEY_2, KEY_3);
    }

    @Test
    void should_not_leak_a_key_even_when_the_upstream_echoes_it() throws Exception {
        // providers do echo the key in 401 bodies ("Incorrect API key provided: sk-...")
        upstream.answer(KEY_1, 401, null, "{\"error\":{\"message\":\"Incorrect API key provided: " + KEY_1 + "\"}}");
        upstream.answer(KEY_2, 500, null, "{\"error\":{\"message\":\"internal error for key " + KEY_2 + "\"}}");
        upstream.answer(KEY_3, 429, "1", "{\"error\":{\"message\":\"rate limit for " + KEY_3 + "\"}}");

        List<HttpResponse<String>> responses = new ArrayList<>();
        responses.add(chat("gpt-test"));
        responses.add(chat("gpt-test"));
        responses.add(post("/v1/chat/completions", "not json " + "x"));
        responses.add(get("/v1/models"));
        HttpResponse<String> status = getWithToken("/admin/status", "admin-test-token");
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("\"fingerprint\"");
        responses.add(status);
        responses.add(get("/observe/metrics"));
        responses.add(get("/observe/health"));

        assertThat(responses.get(0).statusCode()).isEqualTo(503);
        for (HttpResponse<String> r : responses) {
            assertNoSecret(r.body());
            assertNoSecret(r.headers().map().toString());
        }
        assertNoSecret(logs.all());
        assertThat(logs.all()).contains("disabled after 401 from upstream");
        assertNoSecret(channel("alpha").pool().keys().toString());
    }

    private static void assertNoSecret(String text) {
        assertThat(text).doesNotContain(KEY_1).doesNotContain(KEY_2).doesNotContain(KEY_3).doesNotContain("SECRET");
    }
}
