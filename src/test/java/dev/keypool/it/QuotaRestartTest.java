package dev.keypool.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import dev.keypool.pool.Fingerprint;
import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.QuotaStateFile;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
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

    private static final String NAME = "gateway";

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));   // 18:00 in Shanghai
    private final FakeUpstream upstream = new FakeUpstream();
    private final LogCapture logs = LogCapture.attach();
    private GatewayInstance gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
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
        gateway.close();

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

        // the quota-state timer route (every 5 s, here 100 ms): no stop needed
        QuotaStateFile file = new QuotaStateFile(gateway.stateDir());
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(file.read())
                .hasEntrySatisfying("daily/" + Fingerprint.of("sk-daily-secret-1"),
                        counts -> assertThat(counts.get(KeyQuota.Window.RPD).amount()).isEqualTo(2)));
    }

    @Test
    void should_name_keys_by_fingerprint_only_in_the_state_file() throws Exception {
        start();
        chat();
        gateway.close();

        String saved = Files.readString(gateway.stateDir().resolve(QuotaStateFile.NAME));
        assertThat(saved).contains("daily/").contains("\"rpd\"").doesNotContain("sk-daily").doesNotContain("secret");
    }

    @Test
    void should_start_despite_a_corrupt_state_file() throws Exception {
        Path state = Files.createDirectories(dir.resolve(NAME).resolve("state"));
        Files.writeString(state.resolve(QuotaStateFile.NAME), "{not json");

        start();

        assertThat(chat()).isEqualTo(200);
        assertThat(logs.messages(Level.WARN)).filteredOn(line -> line.startsWith("Quota state")).singleElement()
                .satisfies(line -> assertThat(line).contains("ignored"));
    }

    private void restart() throws Exception {
        gateway.close();
        start();
    }

    /** A gateway on the same home as the previous one: the same state.dir. */
    private void start() throws Exception {
        gateway = GatewayInstance.start(dir, NAME, """
                channels:
                  - name: daily
                    baseUrl: %s
                    models: [gpt-daily]
                    quotaZone: Asia/Shanghai
                    maxRetries: 0
                    keys:
                      - key: sk-daily-secret-1
                        rpd: 4
                """.formatted(upstream.baseUrl()), clock, Map.of("keypool.quota-state.save-ms", "100"));
    }

    private int chat() {
        return gateway.chat("gpt-daily", null).statusCode();
    }
}
