package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys added through the admin API come back after a restart with the same master key (on the same state.dir); with
 * another master key, or none, the gateway starts without them, serves the file's keys and says why in one ERROR.
 */
class ProviderKeyRestartTest {

    private static final String RAW = ProviderKeyAddTest.RAW;
    private static final String FINGERPRINT = ProviderKeyAddTest.FINGERPRINT;

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock();
    private final FakeUpstream upstream = new FakeUpstream();
    private final LogCapture logs = LogCapture.attach();
    private final String masterKey = ProviderKeyAddTest.masterKey();
    private GatewayInstance gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        upstream.close();
        logs.close();
    }

    private String yaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    warmup: 10m
                    keys:
                      - key: sk-file-1
                admin:
                  token: admin-secret-token
                """.replace("UPSTREAM", upstream.baseUrl());
    }

    /** The gateway "gw" (always the same state.dir), with this master key (null: none). */
    private void start(String master) {
        if (gateway != null) {
            gateway.close();
        }
        gateway = GatewayInstance.start(dir, "gw", yaml(), clock,
                master == null ? Map.of() : Map.of("KEYPOOL_MASTER_KEY", master));
    }

    private HttpResponse<String> admin(String method, String path, String body) {
        return gateway.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer admin-secret-token").header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    private void addKey() {
        assertThat(admin("POST", "/admin/channels/alpha/keys", "{\"key\":\"" + RAW + "\"}").statusCode()).isEqualTo(201);
    }

    @Test
    void should_serve_an_added_key_after_a_restart_as_a_key_in_service() {
        start(masterKey);
        addKey();

        start(masterKey);

        assertThat(gateway.channel("alpha").pool().find(FINGERPRINT)).isPresent();
        admin("POST", "/admin/keys/" + Fingerprint.of("sk-file-1") + "/disable", null);
        HttpResponse<String> served = gateway.chat("gpt-test", null);
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.headers().firstValue("X-KeyPool-Key")).contains(FINGERPRINT);
        assertThat(upstream.hits(RAW)).isEqualTo(1);
        var pool = gateway.channel("alpha").pool();
        assertThat(pool.warmingUntil(pool.find(FINGERPRINT).orElseThrow())).isEmpty();
    }

    @Test
    void should_start_without_the_stored_keys_under_another_master_key() {
        start(masterKey);
        addKey();
        logs.clear();

        start(ProviderKeyAddTest.masterKey());

        assertThat(gateway.channel("alpha").pool().find(FINGERPRINT)).isEmpty();
        assertThat(gateway.chat("gpt-test", null).statusCode()).isEqualTo(200);
        assertThat(upstream.hits("sk-file-1")).isEqualTo(1);
        assertThat(logs.messages(Level.ERROR)).containsExactly("1 provider keys stored in the database are not served: "
                + "KEYPOOL_MASTER_KEY does not decrypt them: not the master key they were stored with, or their rows "
                + "were altered (" + FINGERPRINT + "(alpha))");
        assertThat(logs.all()).doesNotContain(RAW);
    }

    @Test
    void should_start_without_the_stored_keys_and_refuse_new_ones_without_a_master_key() {
        start(masterKey);
        addKey();
        logs.clear();

        start(null);

        assertThat(gateway.channel("alpha").pool().find(FINGERPRINT)).isEmpty();
        assertThat(gateway.chat("gpt-test", null).statusCode()).isEqualTo(200);
        assertThat(logs.messages(Level.ERROR)).containsExactly("1 provider keys stored in the database are not served: "
                + "KEYPOOL_MASTER_KEY is not set (" + FINGERPRINT + "(alpha)). Start KeyPool with the master key they "
                + "were added with");
        HttpResponse<String> refused = admin("POST", "/admin/channels/alpha/keys", "{\"key\":\"sk-another-key\"}");
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.body()).contains("\"code\":\"master_key_not_set\"", "KEYPOOL_MASTER_KEY is not set",
                "openssl rand -base64 32").doesNotContain("sk-another-key");
        assertThat(logs.all()).doesNotContain(RAW);
    }
}
