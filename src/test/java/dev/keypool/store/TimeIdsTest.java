package dev.keypool.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** SQLite's request-log ids made from the time: the millisecond in the high bits, a sequence within it below. */
class TimeIdsTest {

    private static final long T = 1_764_000_000_123L;

    @Test
    void should_give_each_row_of_a_millisecond_the_next_id_of_that_millisecond() {
        TimeIds ids = new TimeIds();

        assertThat(ids.next(T)).isEqualTo(T << 20);
        assertThat(ids.next(T)).isEqualTo((T << 20) + 1);
        assertThat(ids.next(T + 1)).isEqualTo((T + 1) << 20);
        // a row a few milliseconds late goes on where its millisecond was
        assertThat(ids.next(T)).isEqualTo((T << 20) + 2);
        assertThat(ids.next(T) >> TimeIds.SEQUENCE_BITS).isEqualTo(T);
    }

    @Test
    void should_go_on_after_the_highest_id_stored_for_a_millisecond() {
        TimeIds ids = new TimeIds();

        assertThat(ids.afterStored(T, (T << 20) + 6)).isEqualTo((T << 20) + 7);
        assertThat(ids.next(T)).isEqualTo((T << 20) + 8);
        assertThat(ids.afterStored(T + 5, null)).isEqualTo((T + 5) << 20);
        assertThat(ids.next(T + 5)).isEqualTo(((T + 5) << 20) + 1);
    }

    @Test
    void should_forget_a_millisecond_once_its_place_is_taken_by_a_later_one() {
        TimeIds ids = new TimeIds();
        ids.next(T);
        ids.next(T);

        ids.next(T + 4096);

        // no longer known here: its first id again, which the writer finds taken and replaces (afterStored)
        assertThat(ids.next(T)).isEqualTo(T << 20);
    }

    @Test
    void should_refuse_more_rows_in_one_millisecond_than_its_ids() {
        TimeIds ids = new TimeIds();
        ids.afterStored(T, (T << 20) + TimeIds.SEQUENCE_LIMIT - 2);

        assertThatThrownBy(() -> ids.next(T)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void should_bound_a_range_of_time_by_the_first_id_of_its_millisecond() {
        assertThat(RequestLogTime.BY_ID.bound(T)).isEqualTo(T << 20);
        assertThat(RequestLogTime.BY_ID.before()).isEqualTo("id < ?");
        assertThat(RequestLogTime.BY_TS.bound(T)).isEqualTo(T);
        assertThat(RequestLogTime.BY_TS.atOrAfter()).isEqualTo("ts >= ?");
    }
}
