package dev.keypool.camel.http;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.camel.Exchange;
import org.apache.camel.component.vertx.http.VertxHttpHeaderFilterStrategy;
import org.apache.camel.http.base.HttpHeaderFilterStrategy;
import org.apache.camel.spi.HeaderFilterStrategy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP components' header filters with their answer per header name remembered: the same answer as Camel's own
 * for every header, in both directions, Camel's asked once per name; a header without a value still asks Camel's.
 */
class RememberedHeaderFilterTest {

    private static final List<String> NAMES = List.of("Content-Type", "content-type", "Content-Length", "Host",
            "Authorization", "X-Request-Id", "CamelHttpUri", "camelHttpPath", "org.apache.camel.Foo", "Transfer-Encoding",
            "Connection", "x-ratelimit-remaining-requests", "Cache-Control", "Accept");

    @Test
    void should_answer_as_camels_filters_for_every_header_in_both_directions() {
        for (HeaderFilterStrategy camels : List.of(new HttpHeaderFilterStrategy(), new VertxHttpHeaderFilterStrategy())) {
            RememberedHeaderFilter remembered = new RememberedHeaderFilter(camels);
            for (int round = 0; round < 2; round++) {
                for (String name : NAMES) {
                    assertThat(remembered.applyFilterToCamelHeaders(name, "v", null)).as("to Camel: " + name)
                            .isEqualTo(camels.applyFilterToCamelHeaders(name, "v", null));
                    assertThat(remembered.applyFilterToExternalHeaders(name, "v", null)).as("to the wire: " + name)
                            .isEqualTo(camels.applyFilterToExternalHeaders(name, "v", null));
                }
            }
            assertThat(remembered.applyFilterToExternalHeaders("CamelHttpUri", "v", null)).isTrue();
            assertThat(remembered.applyFilterToExternalHeaders("X-Request-Id", "v", null)).isFalse();
        }
    }

    @Test
    void should_ask_camels_filter_once_per_name_and_each_time_for_a_header_without_a_value() {
        Counting camels = new Counting(new HttpHeaderFilterStrategy());
        RememberedHeaderFilter remembered = new RememberedHeaderFilter(camels);

        for (int i = 0; i < 5; i++) {
            remembered.applyFilterToExternalHeaders("X-KeyPool-Channel", "alpha", null);
            remembered.applyFilterToCamelHeaders("Authorization", "Bearer t", null);
        }
        assertThat(camels.asked).hasValue(2);

        assertThat(remembered.applyFilterToExternalHeaders("X-KeyPool-Channel", null, null))
                .isEqualTo(new HttpHeaderFilterStrategy().applyFilterToExternalHeaders("X-KeyPool-Channel", null, null));
        assertThat(camels.asked).hasValue(3);
    }

    @Test
    void should_keep_answering_as_camels_filter_past_the_names_it_remembers() {
        Counting camels = new Counting(new HttpHeaderFilterStrategy());
        RememberedHeaderFilter remembered = new RememberedHeaderFilter(camels);

        for (int i = 0; i < RememberedHeaderFilter.MAX_NAMES + 10; i++) {
            assertThat(remembered.applyFilterToCamelHeaders("X-Client-" + i, "v", null)).isFalse();
        }
        assertThat(remembered.applyFilterToCamelHeaders("Camel" + RememberedHeaderFilter.MAX_NAMES, "v", null)).isTrue();
        int asked = camels.asked.get();
        remembered.applyFilterToCamelHeaders("X-Client-" + (RememberedHeaderFilter.MAX_NAMES + 5), "v", null);
        assertThat(camels.asked).as("a name beyond those remembered asks again").hasValue(asked + 1);
    }

    private static final class Counting implements HeaderFilterStrategy {
        private final HeaderFilterStrategy camels;
        private final AtomicInteger asked = new AtomicInteger();

        Counting(HeaderFilterStrategy camels) {
            this.camels = camels;
        }

        @Override
        public boolean applyFilterToCamelHeaders(String name, Object value, Exchange exchange) {
            asked.incrementAndGet();
            return camels.applyFilterToCamelHeaders(name, value, exchange);
        }

        @Override
        public boolean applyFilterToExternalHeaders(String name, Object value, Exchange exchange) {
            asked.incrementAndGet();
            return camels.applyFilterToExternalHeaders(name, value, exchange);
        }
    }
}
