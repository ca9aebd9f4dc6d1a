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
 * A key an operator drains takes no new request while keypool.yaml is reloaded, the reload that keeps it included
 * (design §9): requests that come while the reload is under way, after it has reloaded the key's channel and before it
 * is done, are served by the other keys. They are sent from the reload's own thread as it tells of the key it adds to
 * that channel, the moment between the two.
 */
class DrainedKeyReloadTest extends GatewayTestSupport {

    private static final String DRAINED = Fingerprint.of("sk-alpha-1");
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
        assertThat(admin.post("/admin/keys/" + DRAINED + "/drain").statusCode()).isEqualTo(200);
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

        assertThat(failures).isEmpty();
        assertThat(servedBy).hasSize(DURING_RELOAD).doesNotContain(DRAINED);
        assertThat(channel("alpha").pool().find(DRAINED).orElseThrow().draining()).isTrue();
    }
}
