package dev.keypool.it;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;

import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import org.apache.camel.spi.Registry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 100 keys rate limited at the same moment without Retry-After (design §3 cooling) do not all come back at once: with
 * the default cooling they return one by one over the whole of 30-60 s.
 */
class CoolingSpreadTest extends GatewayTestSupport {

    private static final int KEYS = 100;

    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("""
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [gpt-spread]
                    maxRetries: 0
                    breaker:
                      triggers: [latency]
                    keys:
                """);
        IntStream.range(0, KEYS).forEach(i -> yaml.append("      - key: sk-").append(i).append('\n'));
        return yaml.toString();
    }

    @Override
    protected Registry createCamelRegistry() throws Exception {
        Registry registry = super.createCamelRegistry();
        // the cooling times drawn as the gateway would, from a seeded random so that the test is exact
        registry.bind("coolingRandom", RandomGenerator.class, new Random(7));
        return registry;
    }

    @Test
    void should_bring_keys_cooled_together_back_over_the_whole_30_to_60_seconds() throws Exception {
        IntStream.range(0, KEYS).forEach(i -> upstream.answer("sk-" + i, 429));
        for (int i = 0; i < KEYS; i++) {
            // each request cools the next key (the client hears that the channel has no usable key)
            assertThat(chat("gpt-spread").statusCode()).isNotEqualTo(200);
        }
        KeyPool pool = channel("main").pool();
        List<ApiKey> keys = pool.keys();
        assertThat(keys).allSatisfy(key -> assertThat(pool.stateOf(key)).isEqualTo(KeyState.COOLING));

        int[] backBySecond = new int[61];
        for (int second = 1; second <= 60; second++) {
            clock.advance(Duration.ofSeconds(1));
            backBySecond[second] = (int) keys.stream().filter(key -> pool.stateOf(key) == KeyState.ACTIVE).count();
        }

        assertThat(backBySecond[29]).as("back before 30 s").isZero();
        assertThat(backBySecond[60]).as("back by 60 s").isEqualTo(KEYS);
        // every tenth of the range sees keys come back: the returns are spread, not bunched at one end
        for (int from = 30; from < 60; from += 3) {
            assertThat(backBySecond[from + 3] - backBySecond[from]).as("back in (%d s, %d s]", from, from + 3)
                    .isBetween(3, 20);
        }
    }
}
