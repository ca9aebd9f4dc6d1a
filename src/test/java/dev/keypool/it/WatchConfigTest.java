package dev.keypool.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** admin.watchConfig: true reloads keypool.yaml when it changes on disk; an invalid version is logged and skipped. */
class WatchConfigTest extends GatewayTestSupport {

    private static final String YAML = """
            channels:
              - name: alpha
                baseUrl: UPSTREAM
                models: [gpt-test]
                keys:
                  - key: sk-alpha-1
            %s
            admin:
              token: admin-secret-token
              watchConfig: true
            """;

    @Override
    protected String keypoolYaml() {
        return YAML.formatted("");
    }

    /** The file looked at every 100 ms instead of every second: each change is seen within a fraction of a second. */
    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.config-watch-ms", "100");
        return p;
    }

    @Test
    void should_reload_when_the_file_changes() throws Exception {
        Path file = Path.of(context.resolvePropertyPlaceholders("{{keypool.config}}"));

        Files.writeString(file, YAML.formatted("      - key: sk-alpha-2").replace("UPSTREAM", upstream.baseUrl()));

        await().atMost(Duration.ofSeconds(5)).until(() -> channel("alpha").pool().keys().size() == 2);
        assertThat(channel("alpha").pool().keys()).extracting(ApiKey::fingerprint).contains(Fingerprint.of("sk-alpha-2"));
        // the new channels are in place a moment before the reload's line is written
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(logs.messages(Level.INFO))
                .anySatisfy(line -> assertThat(line).contains("reloaded (file change)")));

        Files.writeString(file, YAML.formatted("      - key: sk-alpha-2\n        weight: -1").replace("UPSTREAM", upstream.baseUrl()));

        await().atMost(Duration.ofSeconds(5)).until(() -> logs.messages(Level.WARN).stream()
                .anyMatch(line -> line.contains("channels[0].keys[1].weight") && line.contains("unchanged")));
        assertThat(channel("alpha").pool().keys()).hasSize(2);
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
    }
}
