package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.pipeline.TenantGate;
import dev.keypool.tenant.Tenants;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import dev.keypool.testing.PostgresServer;
import dev.keypool.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two gateways on one PostgreSQL database: a tenant created through one is served by the other within a second (the
 * other polls the store's revision), and a deletion likewise; with Redis, the change notice makes it at once, long
 * before the next poll.
 */
@Tag("slow")
class TenantsSharedDatabaseTest {

    private static PostgresServer postgres;

    private final ObjectMapper mapper = new ObjectMapper();
    private final MutableClock clock = new MutableClock();

    @TempDir
    Path dir;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    private static String yaml(FakeUpstream upstream, String extra) {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-alpha-1
                tenants:
                  - name: team-a
                    token: token-a
                database:
                  url: PG_URL
                admin:
                  token: admin-secret-token
                """.replace("UPSTREAM", upstream.baseUrl()).replace("PG_URL", postgres.url()) + extra;
    }

    private static Tenants tenants(GatewayInstance gateway) {
        return gateway.bean("tenantGate", TenantGate.class).tenants();
    }

    private static HttpResponse<String> admin(GatewayInstance gateway, String method, String path, String body) {
        return gateway.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path))
                .header("Authorization", "Bearer admin-secret-token").header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    @Test
    void should_serve_a_tenant_created_on_another_instance_within_a_second() throws Exception {
        try (FakeUpstream upstream = new FakeUpstream();
             GatewayInstance one = GatewayInstance.start(dir, "one", yaml(upstream, ""), clock);
             GatewayInstance two = GatewayInstance.start(dir, "two", yaml(upstream, ""), clock)) {
            String token = mapper.readTree(admin(one, "POST", "/admin/tenants", "{\"name\":\"team-pg\"}").body())
                    .path("token").asText();

            // in force on the other instance within a second (its requests' own latency aside)
            await().atMost(Duration.ofSeconds(1)).until(() -> tenants(two).named("team-pg").isPresent());
            assertThat(two.chat("gpt-test", token).statusCode()).isEqualTo(200);

            assertThat(admin(one, "DELETE", "/admin/tenants/team-pg", null).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(1)).until(() -> tenants(two).named("team-pg").isEmpty());
            assertThat(two.chat("gpt-test", token).statusCode()).isEqualTo(401);
            assertThat(admin(two, "GET", "/admin/events", null).body()).contains("Tenant team-pg created (another instance)");
        }
    }

    @Test
    void should_apply_a_change_at_once_on_every_instance_with_redis() throws Exception {
        // the poll far off: only the Redis notice can bring the change in time
        Map<String, String> slowPoll = Map.of("keypool.tenants.poll-ms", "60000");
        try (RedisServer redis = RedisServer.start();
             FakeUpstream upstream = new FakeUpstream();
             GatewayInstance one = GatewayInstance.start(dir, "one", yaml(upstream, "redis:\n  url: " + redis.url() + "\n"),
                     clock, slowPoll);
             GatewayInstance two = GatewayInstance.start(dir, "two", yaml(upstream, "redis:\n  url: " + redis.url() + "\n"),
                     clock, slowPoll)) {
            String token = mapper.readTree(admin(one, "POST", "/admin/tenants", "{\"name\":\"team-redis\"}").body())
                    .path("token").asText();

            await().atMost(Duration.ofSeconds(1)).until(() -> tenants(two).named("team-redis").isPresent());
            assertThat(two.chat("gpt-test", token).statusCode()).isEqualTo(200);
            assertThat(admin(one, "PATCH", "/admin/tenants/team-redis", "{\"models\":[\"other-*\"]}").statusCode())
                    .isEqualTo(200);
            await().atMost(Duration.ofSeconds(1)).until(() -> !tenants(two).named("team-redis").orElseThrow()
                    .mayUseModel("gpt-test"));
            assertThat(two.chat("gpt-test", token).statusCode()).isEqualTo(403);
            // Redis carries the tenant's name, never its token or hash
            assertThat(redis.dump().toString()).doesNotContain(token);
        }
    }
}
