package dev.keypool.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
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
 * The key allows 4 requests per day in Shanghai. One test restarts; the others start once on a state file a test wrote
 * or read the one the running gateway writes (QuotaStateFileTest reads and writes the file itself).
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
        // the day's 4 requests spent on 30 November in Shanghai, as a gateway stopped that evening left them
        QuotaStateFile file = new QuotaStateFile(Files.createDirectories(dir.resolve(NAME).resolve("state")));
        file.write(Map.of(QuotaStateFile.keyId("daily", Fingerprint.of("sk-daily-secret-1")),
                Map.of(KeyQuota.Window.RPD, new KeyQuota.PeriodCount(LocalDate.parse("2026-11-30"), 4))));

        // started after midnight in Shanghai, still 30 November in UTC: that count is yesterday's
        clock.set(Instant.parse("2026-11-30T16:00:01Z"));
        start();

        for (int i = 0; i < 4; i++) {
            assertThat(chat()).isEqualTo(200);
        }
        assertThat(chat()).as("the 5th request of 1 December in Shanghai").isEqualTo(429);
        assertThat(upstream.hits("sk-daily-secret-1")).isEqualTo(4);
    }

    @Test
    void should_write_the_counts_while_running_naming_keys_by_fingerprint_only() throws Exception {
        start();
        chat();
        chat();

        // the quota-state timer route (every 5 s, here 100 ms): no stop needed
        QuotaStateFile file = new QuotaStateFile(gateway.stateDir());
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(file.read())
                .hasEntrySatisfying("daily/" + Fingerprint.of("sk-daily-secret-1"),
                        counts -> assertThat(counts.get(KeyQuota.Window.RPD).amount()).isEqualTo(2)));
        String saved = Files.readString(file.path());
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
