package dev.keypool.it;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A key the provider rejects (401) is disabled, and the alert reaches a webhook configured as an http:// sink, as
 * JSON, once per period; it is also an event of /admin/events.
 */
class AlertWebhookTest extends GatewayTestSupport {

    private final WebhookReceiver hook = new WebhookReceiver();
    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    strategy: round-robin
                    keys:
                      - key: sk-alpha-1
                      - key: sk-alpha-2
                admin:
                  token: admin-secret-token
                alerts:
                  sinks: ["HOOK"]
                  period: 10m
                """.replace("HOOK", hook.url("/hooks/keypool"));
    }

    @AfterEach
    void closeHook() {
        hook.close();
    }

    private List<JsonNode> keyDisabledAlerts() {
        return hook.received().stream().map(r -> {
            assertThat(r.contentType()).isEqualTo("application/json");
            try {
                return mapper.readTree(r.body());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }).filter(json -> json.path("rule").asText().equals("keyDisabled")).toList();
    }

    @Test
    void should_post_a_disabled_key_to_the_webhook_once_per_period() throws Exception {
        String fingerprint = Fingerprint.of("sk-alpha-1");
        upstream.answer("sk-alpha-1", 401);

        // whichever key the first request takes, one of two requests meets the rejecting key
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(10)).until(() -> keyDisabledAlerts().size() == 1);
        JsonNode alert = keyDisabledAlerts().get(0);
        assertThat(alert.path("subject").asText()).isEqualTo("alpha/" + fingerprint);
        assertThat(alert.path("channel").asText()).isEqualTo("alpha");
        assertThat(alert.path("message").asText()).isEqualTo("Key " + fingerprint + "(alpha) disabled after 401 from upstream");
        assertThat(hook.received()).allSatisfy(r -> {
            assertThat(r.path()).isEqualTo("/hooks/keypool");
            assertThat(r.body()).doesNotContain("sk-alpha");
        });

        // enabled and rejected again within the period: no second message; after it, one more
        channel("alpha").pool().controls().enable(fingerprint);
        channel("alpha").pool().controls().disable(fingerprint);
        clock.advance(Duration.ofMinutes(10));
        channel("alpha").pool().controls().enable(fingerprint);
        channel("alpha").pool().controls().disable(fingerprint);

        // one queue per sink, in order: had the second been sent, it would be here before the third
        await().atMost(Duration.ofSeconds(10)).until(() -> keyDisabledAlerts().size() >= 2);
        assertThat(keyDisabledAlerts()).hasSize(2);
        assertThat(keyDisabledAlerts().get(1).path("at").asText()).isEqualTo(clock.instant().toString());

        JsonNode events = mapper.readTree(new AdminCalls(http, url("")).get("/admin/events").body()).path("events");
        assertThat(events).filteredOn(e -> e.path("type").asText().equals("alert"))
                .extracting(e -> e.path("rule").asText()).containsExactly("keyDisabled", "keyDisabled");
    }
}
