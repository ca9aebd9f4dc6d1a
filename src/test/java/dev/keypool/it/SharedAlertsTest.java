package dev.keypool.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import dev.keypool.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two gateways on one Redis that both see the same key disabled send one alert per period between them, not one each
 * (design §11): the throttle of each rule and subject is shared.
 */
@Tag("slow")
class SharedAlertsTest {

    private static final String SHARED_KEY = "sk-shared-alpha-5e1b";
    private final String shared = Fingerprint.of(SHARED_KEY);

    @TempDir
    Path dir;
    private final MutableClock clock = new MutableClock();
    private final ObjectMapper mapper = new ObjectMapper();
    private final WebhookReceiver hook = new WebhookReceiver();
    private SharedGateways gateways;

    @AfterEach
    void stop() {
        if (gateways != null) {
            gateways.close();
        }
        hook.close();
    }

    /**
     * Channel alpha on both; channel {@code own-<name>} on this instance only, whose keys {@code sk-own-<name>-<n>}
     * mark how far its alerts have gone: each instance sends its alerts in order, so once its marker is at the
     * webhook, everything it raised before has been sent or refused.
     */
    private String yaml(String name) {
        return """
                redis:
                  url: %s
                  keyPrefix: keypool
                  timeout: 500ms
                channels:
                  - name: alpha
                    baseUrl: %s
                    models: [m]
                    keys:
                      - key: %s
                      - key: sk-shared-alpha-second-77c0
                  - name: own-%s
                    baseUrl: %s
                    models: [own]
                    keys:
                      - key: sk-own-%s-1
                      - key: sk-own-%s-2
                      - key: sk-own-%s-3
                alerts:
                  sinks: ["%s"]
                  period: 10m
                """.formatted(gateways.redis.url(), gateways.upstream.baseUrl(), SHARED_KEY, name,
                gateways.upstream.baseUrl(), name, name, name, hook.url("/hooks/keypool"));
    }

    private List<String> keyDisabledSubjects() {
        return hook.received().stream().map(r -> {
            try {
                return mapper.readTree(r.body());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }).filter(json -> json.path("rule").asText().equals("keyDisabled")).map(json -> json.path("subject").asText())
                .toList();
    }

    private long sent(String subject) {
        return keyDisabledSubjects().stream().filter(subject::equals).count();
    }

    /** The shared key disabled on both (enabled first: a disable of a disabled key changes nothing). */
    private void disableSharedKeyOnBoth(GatewayInstance a, GatewayInstance b) {
        for (GatewayInstance instance : List.of(a, b)) {
            instance.channel("alpha").pool().controls().enable(shared);
            instance.channel("alpha").pool().controls().disable(shared);
        }
    }

    /** Each instance disables its own n-th marker key, and both markers reach the webhook. */
    private void awaitMarkers(GatewayInstance a, GatewayInstance b, int n) {
        String markerA = Fingerprint.of("sk-own-a-" + n);
        String markerB = Fingerprint.of("sk-own-b-" + n);
        a.channel("own-a").pool().controls().disable(markerA);
        b.channel("own-b").pool().controls().disable(markerB);
        await().atMost(Duration.ofSeconds(20)).until(() -> sent("own-a/" + markerA) == 1 && sent("own-b/" + markerB) == 1);
    }

    @Test
    void should_send_one_alert_per_period_between_two_gateways_that_both_raise_it() {
        gateways = new SharedGateways(dir, clock);
        GatewayInstance a = gateways.start("a", yaml("a"));
        GatewayInstance b = gateways.start("b", yaml("b"));

        disableSharedKeyOnBoth(a, b);
        awaitMarkers(a, b, 1);
        assertThat(sent("alpha/" + shared)).isEqualTo(1);

        // within the period: raised again on both, sent by neither
        clock.advance(Duration.ofMinutes(9).plusSeconds(59));
        disableSharedKeyOnBoth(a, b);
        awaitMarkers(a, b, 2);
        assertThat(sent("alpha/" + shared)).isEqualTo(1);

        // the period over: one more, from one of them
        clock.advance(Duration.ofSeconds(1));
        disableSharedKeyOnBoth(a, b);
        awaitMarkers(a, b, 3);
        assertThat(sent("alpha/" + shared)).isEqualTo(2);

        // Redis holds fingerprints and names only
        String redis = gateways.redis.dump().toString();
        assertThat(redis).contains("alert").doesNotContain("sk-shared", "sk-own");
    }
}
