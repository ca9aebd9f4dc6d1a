package dev.keypool.camel.admin;

import java.time.Duration;

import dev.keypool.gateway.HeapPressure;
import dev.keypool.gateway.InFlightLimit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The JVM's own full collections reach the heap pressure, with whatever collector the test JVM runs (the serial one, as
 * pom.xml sets it).
 */
class HeapWatchTest {

    @Test
    void should_cap_the_limit_after_a_full_collection_of_this_jvm_past_the_heap_limit() {
        // any live heap is past 0.01 % of the old generation: the first full collection sets the cap
        InFlightLimit limit = new InFlightLimit(10, new HeapPressure(0.0001));
        assertThat(limit.tryEnter()).isTrue();
        HeapWatch watch = new HeapWatch(limit);
        watch.start();
        try {
            System.gc();   // a full collection ("end of major GC") with Serial, Parallel and G1
            await().atMost(Duration.ofSeconds(10)).until(() -> limit.current() == 1);
            assertThat(limit.tryEnter()).isFalse();
        } finally {
            watch.stop();
        }
    }
}
