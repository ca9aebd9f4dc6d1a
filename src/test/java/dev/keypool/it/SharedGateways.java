package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Gateway instances sharing one real redis-server and one fake upstream, on one clock, closed together. Each starts
 * with the keypool.yaml it is given ({@code redis.url()} and {@code upstream.baseUrl()} in it), or with
 * {@link #mainAndBackupYaml()}: channel {@code main} (keys {@code sk-main-…}, tripped by one failure, 3 probes of which
 * 2 must pass) falling back to {@code backup}.
 */
final class SharedGateways implements AutoCloseable {

    static final String ADMIN_TOKEN = "admin-shared-token-7c1e";
    static final List<String> SECRETS = List.of("sk-main-one-4f7a", "sk-main-two-9b2c", "sk-backup-one-1d3e", ADMIN_TOKEN);

    final RedisServer redis = RedisServer.start();
    final FakeUpstream upstream = new FakeUpstream();
    private final Path dir;
    private final Clock clock;
    private final List<GatewayInstance> instances = new CopyOnWriteArrayList<>();

    /** Instances keep their state under {@code dir} and read the time from {@code clock}. */
    SharedGateways(Path dir, Clock clock) {
        this.dir = dir;
        this.clock = clock;
    }

    String mainAndBackupYaml() {
        return """
                redis:
                  url: %s
                  keyPrefix: keypool
                  timeout: 500ms
                channels:
                  - name: main
                    baseUrl: %s
                    models: [m]
                    maxRetries: 0
                    disableAfter: 100
                    fallback: [backup]
                    breaker:
                      triggers: [consecutive_fail]
                      consecutiveFailThreshold: 1
                      recoveryTimeout: 30s
                      halfOpenRequests: 3
                      halfOpenSuccess: 2
                      reopenDelay: 60s
                    keys:
                      - key: sk-main-one-4f7a
                      - key: sk-main-two-9b2c
                  - name: backup
                    baseUrl: %s
                    models: ["*"]
                    keys:
                      - key: sk-backup-one-1d3e
                admin:
                  token: %s
                """.formatted(redis.url(), upstream.baseUrl(), upstream.baseUrl(), ADMIN_TOKEN);
    }

    GatewayInstance start(String name) {
        return start(name, mainAndBackupYaml());
    }

    GatewayInstance start(String name, String yaml) {
        return start(name, yaml, Map.of());
    }

    /** An instance with these settings of application.properties overridden. */
    GatewayInstance start(String name, String yaml, Map<String, String> settings) {
        GatewayInstance instance = GatewayInstance.start(dir, name, yaml, clock, settings);
        instances.add(instance);
        return instance;
    }

    static HttpResponse<String> admin(GatewayInstance instance, String method, String path, String body) {
        return instance.send(HttpRequest.newBuilder(URI.create(instance.baseUrl() + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + ADMIN_TOKEN)
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    /** Only fingerprints, channel names and reasons in Redis: none of the keys or the admin token, anywhere. */
    void assertNoSecretInRedis() {
        Map<String, String> dump = redis.dump();
        assertThat(dump).isNotEmpty();
        String all = dump.toString();
        SECRETS.forEach(secret -> assertThat(all).doesNotContain(secret));
    }

    @Override
    public void close() {
        instances.forEach(GatewayInstance::close);
        upstream.close();
        redis.close();
    }
}
