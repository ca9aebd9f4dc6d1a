package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import dev.keypool.admin.RuntimeChangesFile;
import dev.keypool.breaker.BreakerState;
import dev.keypool.gateway.Channel;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Changes made through the admin API (disable, drain, weight and limits, a forced OPEN breaker) survive a restart:
 * two real Mains, one after the other, on the same state.dir and the same keypool.yaml.
 */
class RuntimeChangesRestartTest {

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock();
    private final FakeUpstream upstream = new FakeUpstream();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private GatewayInstance gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        upstream.close();
    }

    @Test
    void should_restore_the_operators_changes_after_a_restart() throws Exception {
        start();
        admin("POST", "/admin/keys/" + Fingerprint.of("sk-keep-1") + "/disable", null);
        admin("POST", "/admin/keys/" + Fingerprint.of("sk-keep-2") + "/drain", null);
        admin("PATCH", "/admin/keys/" + Fingerprint.of("sk-keep-3"), "{\"weight\":4,\"rpm\":50}");
        admin("POST", "/admin/channels/keep/breaker", "{\"state\":\"OPEN\",\"reason\":\"provider incident\"}");

        gateway.close();
        start();

        Channel channel = gateway.channel("keep");
        KeyPool pool = channel.pool();
        assertThat(pool.stateOf(pool.find(Fingerprint.of("sk-keep-1")).orElseThrow())).isEqualTo(KeyState.DISABLED);
        assertThat(pool.find(Fingerprint.of("sk-keep-2")).orElseThrow().draining()).isTrue();
        assertThat(pool.find(Fingerprint.of("sk-keep-3")).orElseThrow().weight()).isEqualTo(4);
        assertThat(pool.quotaOf(pool.find(Fingerprint.of("sk-keep-3")).orElseThrow()).use())
                .singleElement().satisfies(use -> assertThat(use.limit()).isEqualTo(50));
        assertThat(channel.breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(channel.breaker().forcedOpen()).isTrue();
        String saved = Files.readString(gateway.stateDir().resolve(RuntimeChangesFile.NAME));
        assertThat(saved).contains("keep/" + Fingerprint.of("sk-keep-1")).doesNotContain("sk-keep");

        // enabling and closing is remembered too
        admin("POST", "/admin/keys/" + Fingerprint.of("sk-keep-1") + "/enable", null);
        admin("POST", "/admin/channels/keep/breaker", "{\"state\":\"CLOSED\"}");
        gateway.close();
        start();
        channel = gateway.channel("keep");
        assertThat(channel.pool().stateOf(channel.pool().find(Fingerprint.of("sk-keep-1")).orElseThrow())).isEqualTo(KeyState.ACTIVE);
        assertThat(channel.breaker().state()).isEqualTo(BreakerState.CLOSED);
    }

    private void admin(String method, String path, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path))
                .header("Authorization", "Bearer admin-secret-token").header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    /** A gateway on the same home as the previous one: the same keypool.yaml and state.dir. */
    private void start() {
        gateway = GatewayInstance.start(dir, "gateway", """
                channels:
                  - name: keep
                    baseUrl: %s
                    models: [gpt-keep]
                    keys:
                      - key: sk-keep-1
                      - key: sk-keep-2
                      - key: sk-keep-3
                admin:
                  token: admin-secret-token
                """.formatted(upstream.baseUrl()), clock);
    }
}
