package dev.keypool.config;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

/** database: and requestLog: in keypool.yaml: SQLite in state.dir and a 30-day log unless the file says otherwise. */
class DatabaseValidationTest {

    private static String with(String topLevel) {
        return channelWith("") + topLevel;
    }

    @Test
    void should_default_to_sqlite_a_30_day_retention_and_the_log_on() {
        GatewayConfig config = parse(with(""));

        assertThat(config.database().postgres()).isEmpty();
        assertThat(config.database().retention()).isEqualTo(Duration.ofDays(30));
        assertThat(config.requestLog().enabled()).isTrue();
    }

    @Test
    void should_take_the_credentials_out_of_a_postgresql_url() {
        GatewayConfig config = parse(with("""
                database:
                  url: postgresql://keypool:s3cr%40t@db.internal:5433/keypool?sslmode=require
                  retention: 7d
                requestLog:
                  enabled: false
                """));

        DatabaseConfig.Postgres postgres = config.database().postgres().orElseThrow();
        assertThat(postgres.jdbcUrl()).isEqualTo("jdbc:postgresql://db.internal:5433/keypool?sslmode=require");
        assertThat(postgres.user()).isEqualTo("keypool");
        assertThat(postgres.password()).isEqualTo("s3cr@t");
        assertThat(postgres.toString()).doesNotContain("s3cr");
        assertThat(config.database().toString()).doesNotContain("s3cr");
        assertThat(config.database().retention()).isEqualTo(Duration.ofDays(7));
        assertThat(config.requestLog().enabled()).isFalse();
    }

    @Test
    void should_read_a_jdbc_url_with_its_credentials_as_parameters() {
        DatabaseConfig.Postgres postgres = parse(with("""
                database:
                  url: jdbc:postgresql://127.0.0.1:5432/kp?user=kp&password=pw&ssl=false
                """)).database().postgres().orElseThrow();

        assertThat(postgres.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/kp?ssl=false");
        assertThat(postgres.user()).isEqualTo("kp");
        assertThat(postgres.password()).isEqualTo("pw");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "database: {url: 'mysql://kp:pw@db/kp'} | database.url: must be a PostgreSQL URL (postgresql://user:password@host:5432/db or jdbc:postgresql://...); leave it out for SQLite in state.dir",
            "database: {url: ''}                    | database.url: must not be blank",
            "database: {retention: 0s}              | database.retention: must be > 0",
            "database: {retention: forever}         | database.retention: invalid duration 'forever' (use e.g. 500ms, 30s, 5m)",
            "database: {path: x}                    | database.path: unknown field",
            "requestLog: {enabled: maybe}           | requestLog.enabled: must be true or false",
            "requestLog: {bodys: true}              | requestLog.bodys: unknown field"})
    void should_report_a_bad_block_with_its_path(String block, String problem) {
        assertThat(problemsOf(with(block + "\n"))).containsExactly(problem);
    }

    @Test
    void should_never_quote_the_url_in_a_problem() {
        assertThat(problemsOf(with("database: {url: 'mysql://kp:hunter2@db/kp'}\n"))).noneMatch(p -> p.contains("hunter2"));
    }
}
