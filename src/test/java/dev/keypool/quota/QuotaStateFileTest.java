package dev.keypool.quota;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Map;

import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static dev.keypool.quota.KeyQuota.Window.RPD;
import static dev.keypool.quota.KeyQuota.Window.TPD;
import static dev.keypool.quota.KeyQuota.Window.TPM_MONTH;
import static org.assertj.core.api.Assertions.assertThat;

class QuotaStateFileTest {

    @RegisterExtension
    final LogCapture log = LogCapture.of(QuotaStateFile.class);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));

    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    @Test
    void should_read_back_what_it_wrote() throws Exception {
        QuotaStateFile file = new QuotaStateFile(dir.resolve("nested"));
        Map<String, Map<KeyQuota.Window, KeyQuota.PeriodCount>> counts = Map.of(
                "zhipu/3f2a000000000000", Map.of(
                        RPD, new KeyQuota.PeriodCount(LocalDate.parse("2026-11-30"), 9),
                        TPM_MONTH, new KeyQuota.PeriodCount(LocalDate.parse("2026-11-01"), 123456789L)),
                "deepseek/9b1c000000000000", Map.of(TPD, new KeyQuota.PeriodCount(LocalDate.parse("2026-11-30"), 77)));

        file.write(counts);

        assertThat(file.read()).isEqualTo(counts);
        // renamed into place: no temporary file left beside it
        try (var files = Files.list(dir.resolve("nested"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly(QuotaStateFile.NAME);
        }
    }

    @Test
    void should_replace_the_previous_version() throws Exception {
        QuotaStateFile file = new QuotaStateFile(dir);
        file.write(Map.of("a/1", Map.of(RPD, new KeyQuota.PeriodCount(LocalDate.parse("2026-11-30"), 1))));

        file.write(Map.of("a/1", Map.of(RPD, new KeyQuota.PeriodCount(LocalDate.parse("2026-11-30"), 2))));

        assertThat(file.read().get("a/1").get(RPD).amount()).isEqualTo(2);
    }

    @Test
    void should_read_nothing_and_say_nothing_when_there_is_no_file() {
        assertThat(new QuotaStateFile(dir).read()).isEmpty();
        assertThat(log.lines()).isEmpty();
    }

    @Test
    void should_ignore_a_corrupt_file_with_one_warning() throws Exception {
        Files.writeString(dir.resolve(QuotaStateFile.NAME), "{\"version\":1,\"keys\":{\"a/1\":{\"rpd\":");

        assertThat(new QuotaStateFile(dir).read()).isEmpty();

        assertThat(log.messages(Level.WARN)).singleElement().satisfies(line -> assertThat(line)
                .contains("Quota state").contains(QuotaStateFile.NAME).contains("ignored").doesNotContain("\n"));
    }

    @Test
    void should_ignore_a_file_that_is_not_a_quota_state() throws Exception {
        Files.writeString(dir.resolve(QuotaStateFile.NAME), "[1, 2, 3]");

        assertThat(new QuotaStateFile(dir).read()).isEmpty();

        assertThat(log.messages(Level.WARN)).hasSize(1);
    }

    @Test
    void should_ignore_an_unreadable_path_with_one_warning() throws Exception {
        Files.createDirectories(dir.resolve(QuotaStateFile.NAME));   // a directory where the file should be

        assertThat(new QuotaStateFile(dir).read()).isEmpty();

        assertThat(log.messages(Level.WARN)).hasSize(1);
    }

    @Test
    void should_restore_todays_count_and_start_a_stale_one_at_zero() throws Exception {
        KeyQuota before = new KeyQuota("Key a(x)", new QuotaLimits(null, null, 100L, null, null), SHANGHAI, clock);
        for (int i = 0; i < 7; i++) {
            before.tryReserve(0, true).orElseThrow();
        }
        QuotaStateFile file = new QuotaStateFile(dir);
        file.write(Map.of("x/a", before.periodCounts()));

        // same Shanghai day (23:59 there): the count is kept
        clock.set(Instant.parse("2026-11-30T15:59:00Z"));
        KeyQuota sameDay = new KeyQuota("Key a(x)", new QuotaLimits(null, null, 100L, null, null), SHANGHAI, clock);
        file.read().get("x/a").forEach(sameDay::restore);
        assertThat(sameDay.use()).singleElement().satisfies(use -> assertThat(use.used()).isEqualTo(7));

        // past midnight in Shanghai (still 30 November in UTC): yesterday's count starts at zero
        clock.set(Instant.parse("2026-11-30T16:00:01Z"));
        KeyQuota nextDay = new KeyQuota("Key a(x)", new QuotaLimits(null, null, 100L, null, null), SHANGHAI, clock);
        file.read().get("x/a").forEach(nextDay::restore);
        assertThat(nextDay.use()).singleElement().satisfies(use -> assertThat(use.used()).isZero());
    }
}
