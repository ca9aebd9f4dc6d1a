package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import dev.keypool.camel.KeyPoolApplication;
import dev.keypool.pool.Fingerprint;
import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.QuotaStateFile;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import org.apache.camel.main.Main;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A key's day count survives a restart of the gateway: two real Mains, one after the other, on the same state.dir.
 * The key allows 4 requests per day in Shanghai.
 */
class QuotaRestartTest {

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));   // 18:00 in Shanghai
    private final FakeUpstream upstream = new FakeUpstream();
    private final LogCapture logs = LogCapture.attach();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private Main main;
    private int port;

    @AfterEach
    void stop() {
        if (main != null) {
            main.stop();
        }
        upstream.close();
        logs.close();
    }

    @Test
    void should_keep_the_day_count_across_a_restart() throws Exception {
        start();
        for (int i = 0; i < 3; i++) {
            assertThat(chat()).isEqualTo(200);
        }
        restart();

        assertThat(chat()).isEqualTo(200);
        assertThat(chat()).as("the 5th request of the day").isEqualTo(429);
        assertThat(upstream.hits("sk-daily-secret-1")).isEqualTo(4);
    }

    @Test
    void should_start_the_day_count_at_zero_after_midnight_in_the_quota_zone() throws Exception {
        start();
        for (int i = 0; i < 4; i++) {
            assertThat(chat()).isEqualTo(200);
        }
        assertThat(chat()).isEqualTo(429);
        main.stop();

        // midnight in Shanghai, still 30 November in UTC
        clock.set(Instant.parse("2026-11-30T16:00:01Z"));
        start();

        for (int i = 0; i < 4; i++) {
            assertThat(chat()).isEqualTo(200);
        }
        assertThat(upstream.hits("sk-daily-secret-1")).isEqualTo(8);
    }

    @Test
    void should_write_the_counts_while_running() throws Exception {
        start();
        chat();
        chat();

        // the quota-state timer route, every 5 s: no stop needed
        QuotaStateFile file = new QuotaStateFile(dir.resolve("state"));
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(file.read())
                .hasEntrySatisfying("daily/" + Fingerprint.of("sk-daily-secret-1"),
                        counts -> assertThat(counts.get(KeyQuota.Window.RPD).amount()).isEqualTo(2)));
    }

    @Test
    void should_name_keys_by_fingerprint_only_in_the_state_file() throws Exception {
        start();
        chat();
        main.stop();

        String saved = Files.readString(dir.resolve("state").resolve(QuotaStateFile.NAME));
        assertThat(saved).contains("daily/").contains("\"rpd\"").doesNotContain("sk-daily").doesNotContain("secret");
    }

    @Test
    void should_start_despite_a_corrupt_state_file() throws Exception {
        Files.createDirectories(dir.resolve("state"));
        Files.writeString(dir.resolve("state").resolve(QuotaStateFile.NAME), "{not json");

        start();

        assertThat(chat()).isEqualTo(200);
        assertThat(logs.messages(Level.WARN)).filteredOn(line -> line.startsWith("Quota state")).singleElement()
                .satisfies(line -> assertThat(line).contains("ignored"));
    }

    private void restart() throws Exception {
        main.stop();
        start();
    }

    private void start() throws Exception {
        Path config = dir.resolve("keypool.yaml");
        Files.writeString(config, """
                channels:
                  - name: daily
                    baseUrl: %s
                    models: [gpt-daily]
                    quotaZone: Asia/Shanghai
                    maxRetries: 0
                    keys:
                      - key: sk-daily-secret-1
                        rpd: 4
                """.formatted(upstream.baseUrl()));
        port = GatewayTestSupport.freePort();
        main = new Main(KeyPoolApplication.class);
        main.bind("clock", clock);
        main.setPropertyPlaceholderLocations("file:application.properties");
        main.addOverrideProperty("keypool.config", config.toString());
        main.addOverrideProperty("camel.server.port", String.valueOf(port));
        main.addOverrideProperty("camel.management.port", String.valueOf(port));
        main.addOverrideProperty("state.dir", dir.resolve("state").toString());
        main.start();
    }

    private int chat() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(GatewayTestSupport.chatBody("gpt-daily"))).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
    }
}
