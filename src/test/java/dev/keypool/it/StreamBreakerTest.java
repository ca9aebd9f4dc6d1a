package dev.keypool.it;

import java.net.http.HttpResponse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.BreakerState;
import dev.keypool.pool.Fingerprint;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stream that breaks after its first event is a failure of its key and channel: it feeds the breaker. The tests share
 * one gateway, each on a channel of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamBreakerTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Each test's channel, named after it, with one key and a fallback channel of its own. */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("channels:\n");
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        fallback: [%1$s-fallback]
                        disableAfter: 5
                        keys:
                          - key: sk-%1$s
                        breaker:
                          triggers: [consecutive_fail]
                          consecutiveFailThreshold: 3
                      - name: %1$s-fallback
                        baseUrl: UPSTREAM
                        models: [%1$s-fallback]
                        keys:
                          - key: sk-%1$s-fallback
                    """.formatted(test));
        }
        return yaml.append("admin:\n  token: admin-secret\n").toString();
    }

    @Test
    void should_trip_consecutive_fail_when_streams_keep_breaking_after_their_first_event() throws Exception {
        upstream.cutStreamAfter(key(), 1);

        for (int i = 1; i <= 2; i++) {
            assertThat(chatStream(testName()).body()).contains("stream_interrupted");
            assertThat(channel(testName()).breaker().state()).isEqualTo(BreakerState.CLOSED);
            assertThat(maxKeyConsecutiveFailures()).isEqualTo(i);
        }
        HttpResponse<String> third = chatStream(testName());

        assertThat(third.headers().firstValue("X-KeyPool-Channel")).contains(testName());
        assertThat(third.body()).contains("stream_interrupted");
        assertThat(channel(testName()).breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(logs.messages(Level.WARN)).contains("Channel [" + testName() + "] tripped: consecutive_fail (3 >= 3)");
        // the channel is out: the next stream goes to the fallback and never reaches the broken key
        HttpResponse<String> fallback = chatStream(testName());
        assertThat(fallback.headers().firstValue("X-KeyPool-Channel")).contains(testName() + "-fallback");
        assertThat(fallback.body()).contains("data: [DONE]");
        assertThat(upstream.hits(key())).isEqualTo(3);
    }

    @Test
    void should_end_a_key_failure_streak_with_a_stream_that_completes() throws Exception {
        upstream.cutStreamAfter(key(), 1);
        chatStream(testName());
        chatStream(testName());
        assertThat(maxKeyConsecutiveFailures()).isEqualTo(2);

        upstream.healthy(key());
        HttpResponse<String> whole = chatStream(testName());

        assertThat(whole.body()).contains("data: [DONE]").doesNotContain("stream_interrupted");
        assertThat(maxKeyConsecutiveFailures()).isZero();
        assertThat(channel(testName()).pool().find(Fingerprint.of(key())).orElseThrow().stats().consecutiveFailures())
                .isZero();
        // the streak started over: two more broken streams do not reach the threshold of three
        upstream.cutStreamAfter(key(), 1);
        chatStream(testName());
        chatStream(testName());
        assertThat(channel(testName()).breaker().state()).isEqualTo(BreakerState.CLOSED);
    }


    /** The figure /admin/status shows for the channel's worst failure streak. */
    private int maxKeyConsecutiveFailures() throws Exception {
        JsonNode status = JSON.readTree(getWithToken("/admin/status", "admin-secret").body());
        for (JsonNode channel : status.path("channels")) {
            if (channel.path("name").asText().equals(testName())) {
                return channel.path("breaker").path("maxKeyConsecutiveFailures").asInt(-1);
            }
        }
        throw new AssertionError("no channel " + testName() + " in " + status);
    }

    /** The one key of this test's channel. */
    private String key() {
        return "sk-" + testName();
    }
}
