package dev.keypool.it;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Properties;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.Fingerprint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * POST /admin/channels/{name}/keys over HTTP: the key is served at once, warming up, answered by its fingerprint only,
 * and kept by a reload of keypool.yaml; a key there already is refused. The tests share one gateway, each on a channel of
 * its own (named after the test) with a key in keypool.yaml and a key to add of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProviderKeyAddTest extends GatewayTestSupport {

    /** A key added at runtime, for the tests of other classes. */
    static final String RAW = "sk-runtime-added-7f3a9c";
    static final String FINGERPRINT = Fingerprint.of(RAW);

    private final ObjectMapper mapper = new ObjectMapper();
    private AdminCalls admin;

    /** 32 random bytes as base64, as {@code openssl rand -base64 32} makes them. */
    static String masterKey() {
        byte[] raw = new byte[32];
        new SecureRandom().nextBytes(raw);
        return Base64.getEncoder().encodeToString(raw);
    }

    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("channels:\n");
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        warmup: 10m
                        keys:
                          - key: sk-file-1-%1$s
                    """.formatted(test));
        }
        return yaml + """
                admin:
                  token: admin-secret-token
                """;
    }

    /** This test's key to add. */
    private String raw() {
        return RAW + "-" + testName();
    }

    private String fingerprint() {
        return Fingerprint.of(raw());
    }

    /** This test's key of keypool.yaml. */
    private String fileKey() {
        return "sk-file-1-" + testName();
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("KEYPOOL_MASTER_KEY", masterKey());
        return p;
    }

    private AdminCalls admin() {
        if (admin == null) {
            admin = new AdminCalls(http, url(""));
        }
        return admin;
    }

    private HttpResponse<String> add(String channel, String raw) throws Exception {
        return admin().post("/admin/channels/" + channel + "/keys", "{\"key\":\"" + raw + "\",\"label\":\"added by ops\"}");
    }

    @Test
    void should_serve_an_added_key_and_answer_its_fingerprint_only() throws Exception {
        HttpResponse<String> added = add(testName(), raw());

        assertThat(added.statusCode()).isEqualTo(201);
        JsonNode answer = mapper.readTree(added.body());
        assertThat(answer.path("fingerprint").asText()).isEqualTo(fingerprint());
        assertThat(answer.path("channel").asText()).isEqualTo(testName());
        assertThat(added.body()).doesNotContain(raw());
        // the file's key out of rotation: every request takes the added one
        admin().post("/admin/keys/" + Fingerprint.of(fileKey()) + "/disable");
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> served = chat(testName());
            assertThat(served.statusCode()).isEqualTo(200);
            assertThat(served.headers().firstValue("X-KeyPool-Key")).contains(fingerprint());
        }
        assertThat(upstream.hits(raw())).isEqualTo(3);
    }

    @Test
    void should_warm_up_an_added_key() throws Exception {
        add(testName(), raw());

        JsonNode key = statusOf(fingerprint());
        assertThat(key.path("warmingUntil").isNull()).isFalse();
        assertThat(key.path("effectiveWeight").asDouble()).isLessThan(1.0);
        assertThat(statusOf(Fingerprint.of(fileKey())).path("warmingUntil").isNull()).isTrue();
    }

    @Test
    void should_tell_an_added_key_from_a_key_of_keypool_yaml_in_the_status() throws Exception {
        add(testName(), raw());

        assertThat(statusOf(fingerprint()).path("origin").asText()).isEqualTo("api");
        assertThat(statusOf(Fingerprint.of(fileKey())).path("origin").asText()).isEqualTo("file");
    }

    @Test
    void should_keep_an_added_key_across_a_reload_of_keypool_yaml() throws Exception {
        add(testName(), raw());
        Path file = Path.of(context.resolvePropertyPlaceholders("{{keypool.config}}"));
        String fileKey2 = "sk-file-2-" + testName();
        Files.writeString(file, Files.readString(file).replace("      - key: " + fileKey() + "\n",
                "      - key: " + fileKey() + "\n      - key: " + fileKey2 + "\n"));

        HttpResponse<String> reloaded = admin().post("/admin/reload");

        assertThat(reloaded.statusCode()).isEqualTo(200);
        JsonNode keys = mapper.readTree(reloaded.body()).path("keys").path(testName());
        assertThat(keys.path("kept").toString()).contains(fingerprint());
        assertThat(keys.path("removed")).isEmpty();
        assertThat(channel(testName()).pool().keys()).extracting(k -> k.fingerprint())
                .containsExactlyInAnyOrder(Fingerprint.of(fileKey()), Fingerprint.of(fileKey2), fingerprint());
        assertThat(channel(testName()).pool().find(fingerprint()).orElseThrow().draining()).isFalse();
        admin().post("/admin/keys/" + Fingerprint.of(fileKey()) + "/disable");
        admin().post("/admin/keys/" + Fingerprint.of(fileKey2) + "/disable");
        assertThat(chat(testName()).headers().firstValue("X-KeyPool-Key")).contains(fingerprint());
    }

    @Test
    void should_refuse_a_key_that_is_there_already_and_leave_the_files_keys_to_the_file() throws Exception {
        add(testName(), raw());

        HttpResponse<String> again = add(testName(), raw());
        HttpResponse<String> fileKey = add(testName(), fileKey());
        HttpResponse<String> removeFileKey = admin().call("DELETE",
                "/admin/channels/" + testName() + "/keys/" + Fingerprint.of(fileKey()), null);

        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.body()).contains("\"code\":\"key_exists\"").doesNotContain(raw());
        assertThat(fileKey.statusCode()).isEqualTo(409);
        assertThat(fileKey.body()).contains("\"code\":\"key_in_config\"").doesNotContain(fileKey());
        assertThat(removeFileKey.statusCode()).isEqualTo(409);
        assertThat(removeFileKey.body()).contains("\"code\":\"key_in_config\"", "keypool.yaml");
        assertThat(channel(testName()).pool().keys()).hasSize(2);
    }

    @Test
    void should_answer_bad_input_early_and_clearly() throws Exception {
        assertThat(add("no-such-channel", raw()).body()).contains("\"code\":\"channel_not_found\"");
        HttpResponse<String> noKey = admin().post("/admin/channels/" + testName() + "/keys", "{\"label\":\"x\"}");
        assertThat(noKey.statusCode()).isEqualTo(400);
        assertThat(noKey.body()).contains("\"code\":\"invalid_key\"");
        HttpResponse<String> spaces = admin().post("/admin/channels/" + testName() + "/keys", "{\"key\":\"sk-has space\"}");
        assertThat(spaces.statusCode()).isEqualTo(400);
        assertThat(spaces.body()).contains("whitespace").doesNotContain("sk-has space");
        HttpResponse<String> broken = admin().post("/admin/channels/" + testName() + "/keys", "{\"key\":\"" + raw());
        assertThat(broken.statusCode()).isEqualTo(400);
        assertThat(broken.body()).contains("\"code\":\"invalid_json\"").doesNotContain(raw());
        HttpResponse<String> unknown = admin().call("DELETE", "/admin/channels/" + testName() + "/keys/0123456789abcdef", null);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("\"code\":\"key_not_found\"");
        assertThat(admin().call("POST", "/admin/channels/" + testName() + "/keys", "{\"key\":\"" + raw() + "\"}", "wrong").statusCode())
                .isEqualTo(401);
        assertThat(channel(testName()).pool().keys()).hasSize(1);
    }

    @Test
    void should_refuse_to_patch_a_key_added_at_runtime_and_change_nothing() throws Exception {
        add(testName(), raw());

        HttpResponse<String> patched = admin().call("PATCH", "/admin/keys/" + fingerprint(), "{\"weight\":3}");

        assertThat(patched.statusCode()).isEqualTo(409);
        assertThat(patched.body()).contains("\"code\":\"key_not_in_config\"");
        assertThat(channel(testName()).pool().find(fingerprint()).orElseThrow().weight()).isEqualTo(1);
    }

    private JsonNode statusOf(String fingerprint) throws Exception {
        for (JsonNode channel : mapper.readTree(admin().get("/admin/status").body()).path("channels")) {
            for (JsonNode key : channel.path("keys")) {
                if (key.path("fingerprint").asText().equals(fingerprint)) {
                    return key;
                }
            }
        }
        throw new AssertionError("no key " + fingerprint + " in /admin/status");
    }
}
