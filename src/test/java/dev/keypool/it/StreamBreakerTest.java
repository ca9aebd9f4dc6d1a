package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.BreakerState;
import dev.keypool.pool.Fingerprint;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A stream that breaks after its first event is a failure of its key and channel: it feeds the breaker. */
class StreamBreakerTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    fallback: [beta]
                    disableAfter: 5
                    keys:
                      - key: sk-alpha-1
                    breaker:
                      triggers: [consecutive_fail]
                      consecutiveFailThreshold: 3
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [beta-model]
                    keys:
                      - key: sk-beta-1
                admin:
                  token: admin-secret
                """;
    }

    @Test
    void should_trip_consecutive_fail_when_streams_keep_breaking_after_their_first_event() throws Exception {
        upstream.cutStreamAfter("sk-alpha-1", 1);

        for (int i = 1; i <= 2; i++) {
            assertThat(stream("gpt-test").body()).contains("stream_interrupted");
            assertThat(channel("alpha").breaker().state()).isEqualTo(BreakerState.CLOSED);
            assertThat(maxKeyConsecutiveFailures()).isEqualTo(i);
        }
        HttpResponse<String> third = stream("gpt-test");

        assertThat(third.headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        assertThat(third.body()).contains("stream_interrupted");
        assertThat(channel("alpha").breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(logs.messages(Level.WARN)).contains("Channel [alpha] tripped: consecutive_fail (3 >= 3)");
        // the channel is out: the next stream goes to the fallback and never reaches the broken key
        HttpResponse<String> fallback = stream("gpt-test");
        assertThat(fallback.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(fallback.body()).contains("data: [DONE]");
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(3);
    }

    @Test
    void should_end_a_key_failure_streak_with_a_stream_that_completes() throws Exception {
        upstream.cutStreamAfter("sk-alpha-1", 1);
        stream("gpt-test");
        stream("gpt-test");
        assertThat(maxKeyConsecutiveFailures()).isEqualTo(2);

        upstream.healthy("sk-alpha-1");
        HttpResponse<String> whole = stream("gpt-test");

        assertThat(whole.body()).contains("data: [DONE]").doesNotContain("stream_interrupted");
        assertThat(maxKeyConsecutiveFailures()).isZero();
        assertThat(channel("alpha").pool().find(Fingerprint.of("sk-alpha-1")).orElseThrow().stats().consecutiveFailures())
                .isZero();
        // the streak started over: two more broken streams do not reach the threshold of three
        upstream.cutStreamAfter("sk-alpha-1", 1);
        stream("gpt-test");
        stream("gpt-test");
        assertThat(channel("alpha").breaker().state()).isEqualTo(BreakerState.CLOSED);
    }

    private HttpResponse<String> stream(String model) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model
                        + "\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The figure /admin/status shows for the channel's worst failure streak. */
    private int maxKeyConsecutiveFailures() throws Exception {
        JsonNode status = JSON.readTree(getWithToken("/admin/status", "admin-secret").body());
        for (JsonNode channel : status.path("channels")) {
            if (channel.path("name").asText().equals("alpha")) {
                return channel.path("breaker").path("maxKeyConsecutiveFailures").asInt(-1);
            }
        }
        throw new AssertionError("no channel alpha in " + status);
    }
}
