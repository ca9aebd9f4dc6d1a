package dev.keypool.it;

import java.time.Duration;
import java.util.Properties;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The rules that look on a timer reach the sinks too: more failed provider calls on a channel than allowed. */
class AlertChannelErrorsTest extends GatewayTestSupport {

    private final WebhookReceiver hook = new WebhookReceiver();
    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    maxRetries: 1
                    keys:
                      - key: sk-alpha-1
                      - key: sk-alpha-2
                alerts:
                  sinks: ["HOOK"]
                  rules:
                    channelErrors: {errors: 3, minutes: 1}
                """.replace("HOOK", hook.url("/hook"));
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.alerts.check-ms", "100");
        return p;
    }

    @AfterEach
    void closeHook() {
        hook.close();
    }

    @Test
    void should_post_a_channel_with_more_errors_than_allowed() throws Exception {
        upstream.answer("sk-alpha-1", 503).answer("sk-alpha-2", 503);

        for (int i = 0; i < 2; i++) {
            chat("gpt-test");
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> hook.received().stream()
                .anyMatch(r -> r.body().contains("\"rule\":\"channelErrors\"")));
        JsonNode alert = mapper.readTree(hook.received().stream()
                .filter(r -> r.body().contains("\"rule\":\"channelErrors\"")).findFirst().orElseThrow().body());
        assertThat(alert.path("subject").asText()).isEqualTo("alpha");
        assertThat(alert.path("message").asText()).startsWith("Channel alpha: 4 failed provider calls in the last 1 minutes");
    }
}
