package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;

import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import dev.keypool.testing.PostgresServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two gateways on one PostgreSQL (a real server started by the test), each with the same master key: a key added
 * through gateway A is served by gateway B within seconds, and a key removed through B leaves A too.
 */
@Tag("slow")
class ProviderKeysPostgresTest {

    private static final String RAW = ProviderKeyAddTest.RAW;
    private static final String FINGERPRINT = ProviderKeyAddTest.FINGERPRINT;

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock();
    private final FakeUpstream upstream = new FakeUpstream();
    private final PostgresServer postgres = PostgresServer.start();
    private GatewayInstance a;
    private GatewayInstance b;

    @AfterEach
    void stop() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
        postgres.close();
        upstream.close();
    }

    private String yaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-file-1
                database:
                  url: PG_URL
                admin:
                  token: admin-secret-token
                """.replace("UPSTREAM", upstream.baseUrl()).replace("PG_URL", postgres.url());
    }

    private static HttpResponse<String> admin(GatewayInstance gateway, String method, String path, String body) {
        return gateway.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer admin-secret-token").header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    @Test
    void should_serve_a_key_added_on_one_instance_from_every_instance() throws Exception {
        Map<String, String> master = Map.of("KEYPOOL_MASTER_KEY", ProviderKeyAddTest.masterKey());
        a = GatewayInstance.start(dir, "a", yaml(), clock, master);
        b = GatewayInstance.start(dir, "b", yaml(), clock, master);
        admin(b, "POST", "/admin/keys/" + Fingerprint.of("sk-file-1") + "/disable", null);

        assertThat(admin(a, "POST", "/admin/channels/alpha/keys", "{\"key\":\"" + RAW + "\"}").statusCode()).isEqualTo(201);

        await().atMost(Duration.ofSeconds(5)).until(() -> b.channel("alpha").pool().find(FINGERPRINT).isPresent());
        HttpResponse<String> served = b.chat("gpt-test", null);
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.headers().firstValue("X-KeyPool-Key")).contains(FINGERPRINT);
        assertThat(upstream.hits(RAW)).isEqualTo(1);
        try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl(), postgres.credentials());
             ResultSet row = connection.createStatement().executeQuery("SELECT secret FROM provider_keys")) {
            assertThat(row.next()).isTrue();
            assertThat(new String(row.getBytes(1), StandardCharsets.ISO_8859_1)).doesNotContain(RAW);
        }

        assertThat(admin(b, "DELETE", "/admin/channels/alpha/keys/" + FINGERPRINT, null).statusCode()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(5)).until(() -> a.channel("alpha").pool().find(FINGERPRINT).isEmpty());
    }
}
