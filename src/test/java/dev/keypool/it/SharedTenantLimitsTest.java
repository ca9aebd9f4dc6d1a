package dev.keypool.it;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.BreakerState;
import dev.keypool.camel.pipeline.TenantGate;
import dev.keypool.redis.RedisLink;
import dev.keypool.tenant.TenantLimits;
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
 * design §7 and §11: two gateway instances sharing one real redis-server admit together what one tenant's limits allow,
 * with the same Retry-After and x-ratelimit-* answers on both; a budget spent through one is spent for the other; and
 * without Redis each instance goes on by the tenant's limits alone, and writes back what it admitted when Redis returns.
 */
@Tag("slow")
class SharedTenantLimitsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TEAM_TOKEN = "kp-team-a-7Qv2xN9cLw4RtZ8bYh3KmP6sJd1FgUe5";
    private static final String SPENDER_TOKEN = "kp-spender-Hn4Wq8ZrT2xLc6VbM9kJ3pYs7DfGa1Ue";

    @TempDir
    Path dir;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
    private SharedGateways shared;
    private GatewayInstance a;
    private GatewayInstance b;

    @BeforeEach
    void start() {
        shared = new SharedGateways(dir, clock);
        String yaml = """
                redis:
                  url: %s
                  # the point here is sharing, not a slow Redis: a busy test machine must not fall back to local limits
                  timeout: 2s
                channels:
                  - name: alpha
                    baseUrl: %s
                    models: ["*"]
                    pricing:
                      priced-model: {input: 50000, output: 50000}
                    keys:
                      - key: sk-proj-T3BlbkFJ4xQ9mZ2vW7nR5cY8
                  # a key with limits of its own: the tenant's admission goes to Redis with its reservation
                  - name: metered
                    baseUrl: %s
                    models: [gpt-4o]
                    fallback: [alpha]
                    keys:
                      - key: sk-proj-M7tr9dKq2xWv5nR8cY3bLz4H
                        rpm: 1000
                tenants:
                  - name: team-a
                    token: %s
                    rpm: 10
                    burst: 10
                  - name: spender
                    token: %s
                    budget: {daily: 1.0}
                queue:
                  maxWait: 0s
                """.formatted(shared.redis.url(), shared.upstream.baseUrl(), shared.upstream.baseUrl(), TEAM_TOKEN, SPENDER_TOKEN);
        // no probe tick while a test runs: a tick's probe-lease claim is a script call of its own, which the count of
        // one script call per request would take for a request's
        Map<String, String> noProbeTick = Map.of("keypool.probe-tick-ms", "600000");
        a = shared.start("a", yaml, noProbeTick);
        b = shared.start("b", yaml, noProbeTick);
    }

    @AfterEach
    void stop() {
        shared.close();
    }

    @Test
    void should_admit_the_tenant_allowance_once_across_both_instances_driven_at_once() throws Exception {
        // 15 requests on each instance at the same moment; the clock stands still, so the bucket never refills
        List<HttpResponse<String>> answers = driveAtOnce(15);

        List<HttpResponse<String>> admitted = answers.stream().filter(r -> r.statusCode() == 200).toList();
        List<HttpResponse<String>> refused = answers.stream().filter(r -> r.statusCode() != 200).toList();
        assertThat(admitted).hasSize(10);
        assertThat(shared.upstream.totalHits()).isEqualTo(10);
        // each admission saw the bucket one lower, whichever instance took it
        assertThat(admitted.stream().map(r -> r.headers().firstValue("x-ratelimit-remaining-requests").orElseThrow()))
                .containsExactlyInAnyOrder("0", "1", "2", "3", "4", "5", "6", "7", "8", "9");
        assertThat(refused).hasSize(20).allSatisfy(r -> {
            // the body says why when it is not the refusal (a 500 names its failure's class in the gateway's log)
            assertThat(r.statusCode()).as(r.body()).isEqualTo(429);
            assertThat(JSON.readTree(r.body()).path("error").path("code").asText()).isEqualTo("tenant_rate_limited");
            // one request refills in 6 s at 10 rpm, the whole bucket in a minute: the same answer from both instances
            assertThat(r.headers().firstValue("Retry-After")).contains("6");
            assertThat(r.headers().firstValue("x-ratelimit-limit-requests")).contains("10");
            assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).contains("0");
            assertThat(r.headers().firstValue("x-ratelimit-reset-requests")).contains("1m0s");
        });

        // 6 s later one request's worth has come back, for one instance only
        clock.advance(Duration.ofSeconds(6));
        assertThat(a.chat("gpt-4o", TEAM_TOKEN).statusCode()).isEqualTo(200);
        assertThat(b.chat("gpt-4o", TEAM_TOKEN).statusCode()).isEqualTo(429);
    }

    @Test
    void should_decide_the_tenant_and_the_limited_key_in_one_redis_call_per_request() throws Exception {
        assertThat(a.chat("metered/gpt-4o", TEAM_TOKEN).statusCode()).isEqualTo(200);   // loads the scripts
        shared.redis.commands().configResetstat();

        for (int i = 0; i < 9; i++) {
            HttpResponse<String> served = (i % 2 == 0 ? b : a).chat("metered/gpt-4o", TEAM_TOKEN);
            assertThat(served.statusCode()).isEqualTo(200);
            assertThat(served.headers().firstValue("x-ratelimit-remaining-requests")).contains(String.valueOf(8 - i));
        }
        // one script call per request: the tenant's bucket and the key's window together (Redis counts the commands
        // the script runs as well, none of them is a second call)
        assertThat(shared.redis.commands().info("commandstats")).containsPattern("cmdstat_evalsha:calls=9,");

        // the tenant's bucket is empty: refused as the tenant's, with nothing taken from the key, and nothing held
        // against the channel
        HttpResponse<String> refused = b.chat("metered/gpt-4o", TEAM_TOKEN);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(JSON.readTree(refused.body()).path("error").path("code").asText()).isEqualTo("tenant_rate_limited");
        assertThat(refused.headers().firstValue("Retry-After")).contains("6");
        assertThat(refused.headers().firstValue("x-ratelimit-remaining-requests")).contains("0");
        assertThat(shared.redis.commands().keys("keypool:quota:metered:*:rpm")).singleElement().satisfies(key ->
                assertThat(shared.redis.commands().hget(key, "sum")).isEqualTo("10"));
        // not walked on to the fallback channel either
        assertThat(shared.upstream.totalHits()).isEqualTo(10);
        assertThat(shared.upstream.hits("sk-proj-T3BlbkFJ4xQ9mZ2vW7nR5cY8")).isZero();
        assertThat(b.channel("metered").breaker().state()).isEqualTo(BreakerState.CLOSED);
        assertThat(b.channel("metered").breaker().figures().errorRatePercent()).isZero();
    }

    @Test
    void should_refuse_on_one_instance_the_budget_spent_on_the_other() throws Exception {
        // 18 tokens at 50,000 USD per million: 0.90 USD a call against a 1.00 USD daily budget
        assertThat(a.chat("priced-model", SPENDER_TOKEN).statusCode()).isEqualTo(200);
        assertThat(a.chat("priced-model", SPENDER_TOKEN).statusCode()).isEqualTo(200);
        // the spending is written without anyone waiting for it
        TenantLimits onB = b.bean("tenantGate", TenantGate.class).tenants().named("spender").orElseThrow().limits();
        await().atMost(Duration.ofSeconds(2)).until(() -> onB.spentToday() >= 1.8 - 1e-9);

        HttpResponse<String> refused = b.chat("priced-model", SPENDER_TOKEN);

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(JSON.readTree(refused.body()).path("error").path("code").asText()).isEqualTo("budget_exceeded");
        Instant midnight = LocalDate.of(2026, 12, 1).atStartOfDay(ZoneOffset.UTC).toInstant();
        assertThat(refused.headers().firstValue("Retry-After"))
                .contains(String.valueOf(Duration.between(clock.instant(), midnight).toSeconds()));
        assertThat(shared.upstream.totalHits()).isEqualTo(2);
    }

    @Test
    void should_serve_the_tenant_by_its_local_limits_while_redis_is_down_and_share_again_when_it_returns() throws Exception {
        for (int i = 0; i < 4; i++) {
            assertThat((i % 2 == 0 ? a : b).chat("gpt-4o", TEAM_TOKEN).statusCode()).isEqualTo(200);
        }

        shared.redis.kill();

        // no request fails because of Redis: each instance's own bucket of 10 decides now
        List<HttpResponse<String>> answers = driveAtOnce(12);
        assertThat(answers).allSatisfy(r -> assertThat(r.statusCode()).isIn(200, 429));
        assertThat(answers.stream().filter(r -> r.statusCode() == 200)).hasSize(20);
        assertThat(answers.stream().filter(r -> r.statusCode() == 429))
                .allSatisfy(r -> assertThat(JSON.readTree(r.body()).path("error").path("code").asText())
                        .isEqualTo("tenant_rate_limited"));

        // back empty: the instances write back what they admitted alone, so the shared bucket is not full again
        shared.redis.restart();
        await().atMost(Duration.ofSeconds(10)).until(() -> a.bean("redisLink", RedisLink.class).up()
                && b.bean("redisLink", RedisLink.class).up()
                && shared.redis.commands().hget("keypool:tenant:team-a:bucket", "units") != null);
        for (GatewayInstance instance : List.of(a, b)) {
            HttpResponse<String> refused = instance.chat("gpt-4o", TEAM_TOKEN);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("x-ratelimit-remaining-requests")).contains("0");
        }
    }

    /** {@code perInstance} chats on each instance, all started together; their answers. */
    private List<HttpResponse<String>> driveAtOnce(int perInstance) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2 * perInstance);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 2 * perInstance; i++) {
                GatewayInstance instance = i % 2 == 0 ? a : b;
                calls.add(pool.submit(() -> {
                    go.await();
                    return instance.chat("gpt-4o", TEAM_TOKEN);
                }));
            }
            go.countDown();
            List<HttpResponse<String>> answers = new ArrayList<>();
            for (Future<HttpResponse<String>> call : calls) {
                answers.add(call.get());
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }
}
