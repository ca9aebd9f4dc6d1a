package dev.keypool.it;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.keypool.pool.Fingerprint;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator set on a key through the admin API holds while keypool.yaml is reloaded, the reload that keeps the
 * key included, and after it (design §9): a drained key takes no new request, and a limit set on the key keeps its
 * window's count. The requests that matter come while the reload is under way, after it has reloaded the key's channel
 * and before it is done: they are sent from the reload's own thread as it tells of the key it adds to that channel, the
 * moment between the two. The gateway's clock stands still: no minute passes.
 */
class OperatorKeyChangesOverReloadTest extends GatewayTestSupport {

    private static final String KEY = Fingerprint.of("sk-alpha-1");
    private static final int DURING_RELOAD = 6;
    private static final String YAML = """
            channels:
              - name: alpha
                baseUrl: UPSTREAM
                models: [gpt-test]
                keys:
                  - key: sk-alpha-1
                  - key: sk-alpha-2
            %s
            admin:
              token: admin-secret-token
            """;

    @Override
    protected String keypoolYaml() {
        return YAML.formatted("");
    }

    @Test
    void should_send_no_request_to_a_drained_key_while_a_reload_keeps_it() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        assertThat(admin.post("/admin/keys/" + KEY + "/drain").statusCode()).isEqualTo(200);
        addAKeyToTheFile();

        List<String> servedBy = servedWhileReloading(admin, "gpt-test", DURING_RELOAD);

        assertThat(servedBy).hasSize(DURING_RELOAD).doesNotContain(KEY);
        assertThat(channel("alpha").pool().find(KEY).orElseThrow().draining()).isTrue();
    }

    @Test
    void should_keep_an_operators_limit_and_its_count_while_a_reload_keeps_the_key() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        assertThat(admin.call("PATCH", "/admin/keys/" + KEY, "{\"rpm\":1}").statusCode()).isEqualTo(200);
        // its one request of the minute
        List<String> before = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            before.add(servedKey(chat("gpt-test")));
        }
        assertThat(before).containsOnlyOnce(KEY);
        addAKeyToTheFile();

        List<String> servedBy = new ArrayList<>(servedWhileReloading(admin, "gpt-test", DURING_RELOAD));
        for (int i = 0; i < 4; i++) {
            servedBy.add(servedKey(chat("gpt-test")));
        }

        assertThat(servedBy).as("during the reload, then after it").hasSize(DURING_RELOAD + 4).doesNotContain(KEY);
    }

    /** The reload adds sk-alpha-3 to alpha: the moment it tells of it is when the requests of the reload go out. */
    private void addAKeyToTheFile() throws Exception {
        Path file = Path.of(context.resolvePropertyPlaceholders("{{keypool.config}}"));
        Files.writeString(file, YAML.formatted("      - key: sk-alpha-3").replace("UPSTREAM", upstream.baseUrl()));
    }

    private static String servedKey(HttpResponse<String> answer) {
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return answer.headers().firstValue("X-KeyPool-Key").orElseThrow();
    }
}
