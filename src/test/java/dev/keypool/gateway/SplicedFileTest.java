package dev.keypool.gateway;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which bytes of each chunk of a spooled upload go to the provider when one range is replaced. */
class SplicedFileTest {

    private static final Path FILE = Path.of("upload");
    // bytes [100, 110) replaced by 4 bytes
    private final SplicedFile spliced = new SplicedFile(FILE, 1000, 100, 110, "abcd".getBytes(StandardCharsets.UTF_8));

    @Test
    void should_send_the_file_length_less_the_range_plus_the_replacement() {
        assertThat(spliced.length()).isEqualTo(994);
        assertThat(SplicedFile.whole(FILE, 1000).length()).isEqualTo(1000);
        assertThat(SplicedFile.whole(FILE, 1000).spliced()).isFalse();
    }

    @Test
    void should_pass_chunks_before_and_after_the_range_unchanged() {
        assertThat(spliced.cut(0, 100).unchanged()).isTrue();
        assertThat(spliced.cut(110, 500).unchanged()).isTrue();
        assertThat(SplicedFile.whole(FILE, 1000).cut(0, 1000).unchanged()).isTrue();
    }

    @Test
    void should_cut_the_range_out_of_the_chunk_that_holds_it_and_insert_the_replacement_once() {
        assertThat(spliced.cut(0, 200)).isEqualTo(new SplicedFile.Cut(100, true, 110));
    }

    @Test
    void should_split_the_range_over_the_chunks_it_straddles() {
        // chunk [96, 104): keeps 4 bytes, then the replacement; chunk [104, 112): drops 6 bytes, keeps 2
        assertThat(spliced.cut(96, 8)).isEqualTo(new SplicedFile.Cut(4, true, 8));
        assertThat(spliced.cut(104, 8)).isEqualTo(new SplicedFile.Cut(0, false, 6));
        // a chunk wholly inside the range sends nothing
        assertThat(spliced.cut(102, 4)).isEqualTo(new SplicedFile.Cut(0, false, 4));
    }

    @Test
    void should_refuse_a_range_outside_the_file() {
        assertThatThrownBy(() -> new SplicedFile(FILE, 10, 5, 11, new byte[1])).isInstanceOf(IllegalArgumentException.class);
    }
}
