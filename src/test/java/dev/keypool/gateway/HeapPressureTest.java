package dev.keypool.gateway;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HeapPressureTest {

    @Test
    void should_set_no_cap_while_full_collections_leave_room() {
        HeapPressure heap = new HeapPressure(0.9);

        assertThat(heap.afterFullCollection(0.86, 9800)).isEqualTo(HeapPressure.NONE);
        assertThat(heap.cap()).isEqualTo(HeapPressure.NONE);
    }

    @Test
    void should_cap_at_what_would_fill_the_old_generation_to_the_target_when_past_the_limit() {
        HeapPressure heap = new HeapPressure(0.9);

        // 9,000 requests left it 96 % full: 9,000 x 0.72 / 0.96 = 6,750 would fill it to 72 % (0.8 x the limit)
        assertThat(heap.afterFullCollection(0.96, 9000)).isEqualTo(6750);
        assertThat(heap.cap()).isEqualTo(6750);
    }

    @Test
    void should_only_lower_the_cap_while_collections_stay_past_the_limit() {
        HeapPressure heap = new HeapPressure(0.9);
        heap.afterFullCollection(0.96, 9000);

        // fewer requests, still past the limit (each holds more than thought): lower again
        assertThat(heap.afterFullCollection(0.99, 6000)).isEqualTo(4363);
        // past the limit with more in flight than the cap allows (those already in stay): never raised
        assertThat(heap.afterFullCollection(0.95, 9000)).isEqualTo(4363);
    }

    @Test
    void should_keep_the_cap_between_the_target_and_the_limit_and_lift_it_below_the_target() {
        HeapPressure heap = new HeapPressure(0.9);
        heap.afterFullCollection(0.96, 9000);

        assertThat(heap.afterFullCollection(0.80, 6750)).isEqualTo(6750);
        assertThat(heap.afterFullCollection(0.71, 6750)).isEqualTo(HeapPressure.NONE);
    }

    @Test
    void should_not_cap_requests_for_a_heap_they_do_not_fill() {
        HeapPressure heap = new HeapPressure(0.9);

        // nothing in flight: the requests are not what fills it, refusing them would not help
        assertThat(heap.afterFullCollection(0.97, 0)).isEqualTo(HeapPressure.NONE);
        // one request in flight still gets a cap of at least one
        assertThat(heap.afterFullCollection(0.97, 1)).isEqualTo(1);
    }

    @Test
    void should_be_off_at_a_limit_of_one() {
        HeapPressure off = new HeapPressure(1);

        assertThat(off.afterFullCollection(1.0, 9000)).isEqualTo(HeapPressure.NONE);
        assertThatThrownBy(() -> new HeapPressure(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
