package dev.keypool.camel.pipeline;

import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RecentCustomIdsTest {

    @Test
    void should_take_a_custom_id_once_until_it_is_removed() {
        RecentCustomIds ids = new RecentCustomIds(10);

        assertThat(ids.add("line-1")).isTrue();
        assertThat(ids.add("line-1")).as("a redelivered record").isFalse();
        assertThat(ids.confirm("line-1")).isTrue();
        ids.remove("line-1");   // its exchange failed: it runs again when redelivered
        assertThat(ids.add("line-1")).isTrue();
    }

    @Test
    void should_forget_the_least_recent_custom_ids_beyond_its_size() {
        RecentCustomIds ids = new RecentCustomIds(1_000);

        IntStream.range(0, 5_000).forEach(i -> ids.add("line-" + i));

        assertThat(IntStream.range(0, 5_000).filter(i -> ids.contains("line-" + i)).count()).isLessThanOrEqualTo(1_000);
        assertThat(ids.contains("line-0")).isFalse();
        assertThat(ids.contains("line-4999")).isTrue();
    }

    @Test
    void should_keep_its_custom_ids_when_the_route_stops_and_starts_again() {
        RecentCustomIds ids = new RecentCustomIds(10);
        ids.add("line-1");

        ids.stop();
        ids.start();

        assertThat(ids.add("line-1")).as("redelivered after the restart").isFalse();
    }
}
