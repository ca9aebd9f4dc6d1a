package dev.keypool.it;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

import dev.keypool.pool.Fingerprint;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A provider key added at runtime is stored only as ciphertext: its raw bytes are in no file of state.dir (the SQLite
 * database and its WAL included), no log line and no answer of the admin API, metrics or the gateway.
 */
class ProviderKeySecretsTest extends GatewayTestSupport {

    private static final String RAW = "sk-runtime-SECRET-5d1e88b0";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-file-1
                admin:
                  token: admin-secret-token
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("KEYPOOL_MASTER_KEY", ProviderKeyAddTest.masterKey());
        return p;
    }

    @Test
    void should_keep_the_raw_key_out_of_files_logs_and_answers() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        List<HttpResponse<String>> answers = new ArrayList<>();
        answers.add(admin.post("/admin/channels/alpha/keys", "{\"key\":\"" + RAW + "\",\"label\":\"team-a\"}"));
        answers.add(admin.post("/admin/channels/alpha/keys", "{\"key\":\"" + RAW + "\"}"));
        admin.post("/admin/keys/" + Fingerprint.of("sk-file-1") + "/disable");
        // the provider echoes the key it refuses, as OpenAI does
        upstream.answer(RAW, 401, null, "{\"error\":{\"message\":\"Incorrect API key provided: " + RAW + "\"}}");
        answers.add(chat("gpt-test"));
        answers.add(admin.post("/admin/reload"));
        answers.add(admin.get("/admin/status"));
        answers.add(admin.get("/admin/events"));
        answers.add(get("/observe/metrics"));
        Path stateDir = Path.of(context.resolvePropertyPlaceholders("{{state.dir}}"));
        assertThat(upstream.hits(RAW)).isEqualTo(1);
        // the row is there, by its fingerprint: the search below reads the place the key is kept
        assertThat(filesUnder(stateDir)).contains(Fingerprint.of(RAW));
        assertThat(filesUnder(stateDir)).doesNotContain(RAW);

        answers.add(admin.call("DELETE", "/admin/channels/alpha/keys/" + Fingerprint.of(RAW), null));

        assertThat(answers.get(0).statusCode()).isEqualTo(201);
        assertThat(answers.get(answers.size() - 1).statusCode()).isEqualTo(200);
        for (HttpResponse<String> answer : answers) {
            assertThat(answer.body()).as(answer.uri().toString()).doesNotContain(RAW);
            assertThat(answer.headers().map().toString()).doesNotContain(RAW);
        }
        assertThat(logs.all()).contains(Fingerprint.of(RAW)).doesNotContain(RAW);
        assertThat(filesUnder(stateDir)).doesNotContain(RAW);
    }

    /** Every file under {@code dir}, as ISO-8859-1 text: any byte sequence of the key shows as itself. */
    private static String filesUnder(Path dir) throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                all.append(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)).append('\n');
            }
        }
        return all.toString();
    }
}
