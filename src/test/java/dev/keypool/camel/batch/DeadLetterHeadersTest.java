package dev.keypool.camel.batch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/** A record that cannot run goes to the dead-letter topic saying why and where it was, as docs/configuration.md names it. */
class DeadLetterHeadersTest {

    @Test
    void should_name_why_and_where_the_record_was_in_its_headers() {
        KafkaLines.Rejection why = new KafkaLines.Rejection("invalid_json", "Line 1 is not valid JSON", "keypool.requests",
                2, 41L);

        assertThat(why.headers()).containsExactly(
                entry("keypool-error", "invalid_json"),
                entry("keypool-error-message", "Line 1 is not valid JSON"),
                entry("keypool-source-topic", "keypool.requests"),
                entry("keypool-source-partition", "2"),
                entry("keypool-source-offset", "41"));
    }
}
