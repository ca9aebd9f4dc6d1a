package dev.keypool.gateway;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class ByteSearchTest {

    @Test
    void should_find_the_first_occurrence_at_or_after_a_position() {
        byte[] body = "abcabcabd--abcabd".getBytes(StandardCharsets.US_ASCII);
        ByteSearch search = new ByteSearch("abcabd".getBytes(StandardCharsets.US_ASCII));

        assertThat(search.in(body, 0)).isEqualTo(3);
        assertThat(search.in(body, 4)).isEqualTo(11);
        assertThat(search.in(body, 12)).isEqualTo(-1);
    }

    @Test
    void should_search_a_body_of_near_matches_of_a_long_needle_in_linear_time() {
        // a plain search compares up to 6,000 bytes at each of 4 million positions: minutes; this one reads each byte
        // about twice
        byte[] needle = new byte[6000];
        Arrays.fill(needle, (byte) '-');
        needle[needle.length - 1] = 'x';
        byte[] body = new byte[4 * 1024 * 1024];
        Arrays.fill(body, (byte) '-');

        int found = assertTimeoutPreemptively(Duration.ofSeconds(1), () -> new ByteSearch(needle).in(body, 0));

        assertThat(found).isEqualTo(-1);
    }
}
