package dev.keypool.it;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import dev.keypool.auth.Sha256;
import dev.keypool.testing.GatewayInstance;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * design §11: after two instances served tenants with realistic tokens through every limit kind (bucket, tokens per
 * minute, requests per day, budget), Redis holds their names and counts, never a token, nor its SHA-256.
 */
@Tag("slow")
class SharedTenantSecretsTest {

    private static final List<String> TOKENS = List.of(
            "kp-live-4eC39HqLyjWDarjtT1zdp7dc9Xh2Qm8N",
            "kp-live-Rz81LmQv0XcT5wYs2Nh7Bd4KpJ9eGu3F",
            "sk-tenant-cafe-Ux9Hy3Wq7Lm2Zt5Rn8Vb1Kc4");
    private static final List<String> KEYS = List.of("sk-proj-9fQm2XvL7tRzW4nY8cK1bH3sJ6pD0aGe",
            "sk-proj-Bk3Tn8Wq1Lz6Xr4Ym9Vc2Hs7Jd5Pf0Ga");

    @TempDir
    Path dir;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
    private SharedGateways shared;

    @BeforeEach
    void share() {
        shared = new SharedGateways(dir, clock);
    }

    @AfterEach
    void stop() {
        shared.close();
    }

    @Test
    void should_keep_no_tenant_token_nor_its_hash_in_redis() {
        String yaml = """
                redis:
                  url: %s
                  timeout: 2s
                channels:
                  - name: alpha
                    baseUrl: %s
                    models: ["*"]
                    pricing:
                      priced-model: {input: 5000, output: 5000}
                    keys:
                      - key: %s
                      - key: %s
                tenants:
                  - name: team-a
                    token: %s
                    rpm: 60
                    burst: 3
                    tpm: 10000
                    rpd: 1000
                    budget: {daily: 5.0, monthly: 50.0}
                  - name: team-b
                    token: %s
                    budget: {daily: 0.1}
                  - name: cafe
                    token: %s
                    rpd: 2
                queue:
                  maxWait: 0s
                """.formatted(shared.redis.url(), shared.upstream.baseUrl(), KEYS.get(0), KEYS.get(1), TOKENS.get(0), TOKENS.get(1),
                TOKENS.get(2));
        GatewayInstance a = shared.start("a", yaml);
        GatewayInstance b = shared.start("b", yaml);

        // admitted, refused by the bucket, by the day's requests and by the budget, on both instances
        for (int i = 0; i < 4; i++) {
            for (String token : TOKENS) {
                (i % 2 == 0 ? a : b).chat("priced-model", token);
            }
        }

        await().atMost(Duration.ofSeconds(2)).until(() -> shared.redis.dump().keySet().stream().anyMatch(k -> k.contains("team-b:spent")));
        Map<String, String> dump = shared.redis.dump();
        assertThat(dump.keySet()).anyMatch(k -> k.startsWith("keypool:tenant:team-a:"))
                .anyMatch(k -> k.startsWith("keypool:tenant:cafe:requests:"));
        String stored = dump.toString();
        for (String secret : secrets()) {
            assertThat(stored).as("Redis holds a tenant token, an API key or a hash of one").doesNotContainIgnoringCase(secret);
        }
    }

    /** The tokens and keys, their SHA-256 in hex and Base64, and their first 16 characters. */
    private static List<String> secrets() {
        List<String> secrets = new ArrayList<>();
        List<String> all = new ArrayList<>(TOKENS);
        all.addAll(KEYS);
        for (String secret : all) {
            byte[] hash = Sha256.of(secret);
            secrets.add(secret);
            secrets.add(secret.substring(0, 16));
            secrets.add(HexFormat.of().formatHex(hash));
            secrets.add(Base64.getEncoder().encodeToString(hash));
            secrets.add(Base64.getUrlEncoder().withoutPadding().encodeToString(hash));
        }
        return secrets;
    }
}
