package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.events.EventLog;
import dev.keypool.pool.Fingerprint;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A limit an operator set on a key (PATCH /admin/keys) holds while keypool.yaml is reloaded and after (design §9): its
 * window keeps what it counted, and requests that come while the reload is under way, after it has reloaded the key's
 * channel and before it is done, find the key as full as it is. They are sent from the reload's own thread as it tells
 * of the key it adds to that channel, the moment between the two. The gateway's clock stands still: the minute does not
 * pass.
 */
class TunedKeyReloadTest extends GatewayTestSupport {

    private static final String LIMITED = Fingerprint.of("sk-alpha-1");
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
    void should_keep_an_operators_limit_and_its_count_while_a_reload_keeps_the_key() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        assertThat(admin.call("PATCH", "/admin/keys/" + LIMITED, "{\"rpm\":1}").statusCode()).isEqualTo(200);
        // its one request of the minute
        List<String> before = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> answer = chat("gpt-test");
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            before.add(answer.headers().firstValue("X-KeyPool-Key").orElseThrow());
        }
        assertThat(before).containsOnlyOnce(LIMITED);
        EventLog events = context.getRegistry().lookupByNameAndType("eventLog", EventLog.class);
        List<String> servedBy = new CopyOnWriteArrayList<>();
        List<String> failures = new CopyOnWriteArrayList<>();
        Path file = Path.of(context.resolvePropertyPlaceholders("{{keypool.config}}"));
        Files.writeString(file, YAML.formatted("      - key: sk-alpha-3").replace("UPSTREAM", upstream.baseUrl()));

        // on the reload's thread, once it has reloaded alpha's keys (it tells of the key it added)
        try (EventLog.Subscription reloading = events.subscribe(Long.MAX_VALUE, entry -> {
            if (entry.event().message().contains("added by reload")) {
                for (int i = 0; i < DURING_RELOAD; i++) {
                    try {
                        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                                .POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))).build(),
                                HttpResponse.BodyHandlers.ofString());
                        servedBy.add(answer.headers().firstValue("X-KeyPool-Key").orElse(answer.statusCode() + " " + answer.body()));
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }
            }
        })) {
            HttpResponse<String> reloaded = admin.post("/admin/reload");
            assertThat(reloaded.statusCode()).as(reloaded.body()).isEqualTo(200);
        }

        for (int i = 0; i < 4; i++) {
            HttpResponse<String> answer = chat("gpt-test");
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            servedBy.add(answer.headers().firstValue("X-KeyPool-Key").orElseThrow());
        }

        assertThat(failures).isEmpty();
        assertThat(servedBy).as("during the reload, then after it").hasSize(DURING_RELOAD + 4).doesNotContain(LIMITED);
    }
}
