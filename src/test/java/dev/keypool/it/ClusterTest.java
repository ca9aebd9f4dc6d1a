package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.ClusterFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three gateway processes on the deployment files' keypool.yaml, sharing a real redis-server and PostgreSQL, behind
 * Debian's nginx on deploy/nginx.conf, behave as one service (design §11): a failing key is probed by one instance,
 * not three; a fault injected through one acts on all; each one's events are seen through every other; status lists
 * the three, and one as gone after a SIGKILL; a reload through nginx answers each live instance's result.
 */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BAD = "sk-cluster-bad-4Hq8Zt2Wm6Yp0Rv3";
    private static final String GOOD = "sk-cluster-good-9Lc5Xn1Bf7Dk2Sj8";
    private static final Duration PROBE_PERIOD = Duration.ofSeconds(2);
    private static final Duration HEARTBEAT = Duration.ofMillis(300);

    private ClusterFixture cluster;
    private String balancer;

    @BeforeAll
    void start(@TempDir Path dir) {
        cluster = ClusterFixture.start(dir);
        Map<String, String> environment = new HashMap<>(cluster.deployEnvironment(BAD, GOOD));
        environment.put("PROBE_DISABLED_INTERVAL", PROBE_PERIOD.toSeconds() + "s");
        cluster.startGateways(3, ClusterFixture.deployYaml(),
                Map.of("keypool.cluster.heartbeat-ms", String.valueOf(HEARTBEAT.toMillis())), environment);
        cluster.startBalancer();
        balancer = cluster.balancerUrl();
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void should_probe_a_failing_key_from_one_instance_and_bring_it_back_on_all() {
        cluster.upstream.answer(BAD, 401);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            cluster.chat(balancer, "gpt-4o-mini");
            return cluster.instances().stream().anyMatch(i -> "DISABLED".equals(keyState(i.url(), BAD)));
        });
        // the state change reaches the others through Redis within milliseconds (bench/redis.sh); the bound leaves
        // room for three status reads on a loaded machine
        await().atMost(Duration.ofSeconds(10)).until(() ->
                cluster.instances().stream().allMatch(i -> "DISABLED".equals(keyState(i.url(), BAD))));
        long before = modelsProbes(BAD);

        // three instances probing alone would send about three per period: 9 or more in three periods
        await().during(PROBE_PERIOD.multipliedBy(3)).atMost(PROBE_PERIOD.multipliedBy(4))
                .until(() -> modelsProbes(BAD) - before <= 5);
        assertThat(modelsProbes(BAD) - before).as("probes of the disabled key in three periods").isBetween(2L, 5L);

        cluster.upstream.healthy(BAD);
        await().atMost(PROBE_PERIOD.multipliedBy(3)).until(() ->
                cluster.instances().stream().allMatch(i -> "ACTIVE".equals(keyState(i.url(), BAD))));
    }

    @Test
    @Order(2)
    void should_show_every_instance_the_events_of_the_others_once_each() throws Exception {
        String fingerprint = Fingerprint.of(BAD);
        List<String> madeOn = new ArrayList<>();
        for (ClusterFixture.Instance instance : cluster.instances()) {
            List<JsonNode> disabled = new ArrayList<>();
            events(instance.url()).forEach(event -> {
                if (fingerprint.equals(event.path("key").asText()) && "DISABLED".equals(event.path("to").asText())) {
                    disabled.add(event);
                }
            });
            assertThat(disabled).as("DISABLED events of the key on %s", instance.name()).hasSize(1);
            madeOn.add(disabled.get(0).path("instance").asText());
        }
        // the instance whose request met the 401, as each of the three tells it
        assertThat(madeOn).containsOnly(madeOn.get(0));
        assertThat(cluster.instances()).anyMatch(i -> madeOn.get(0).endsWith(i.idSuffix()));

        // the stream through nginx, whichever instance serves it, shows a change made on the last one
        ClusterFixture.Instance last = cluster.instance(2);
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<Stream<String>> stream = http.send(HttpRequest.newBuilder(URI.create(balancer + "/admin/events?stream=true"))
                .header("Authorization", "Bearer " + ClusterFixture.ADMIN_TOKEN).build(), HttpResponse.BodyHandlers.ofLines());
        try {
            CompletableFuture<String> seen = CompletableFuture.supplyAsync(() -> stream.body()
                    .filter(line -> line.startsWith("data:") && line.contains("draining by operator")
                            && line.contains(last.idSuffix() + "\""))
                    .findFirst().orElse(null));
            assertThat(cluster.admin(last.url(), "POST", "/admin/keys/" + Fingerprint.of(GOOD) + "/drain", null)
                    .statusCode()).isEqualTo(200);
            assertThat(seen.get(20, TimeUnit.SECONDS)).contains("\"key\":\"" + Fingerprint.of(GOOD) + "\"");
        } finally {
            stream.body().close();
        }
        assertThat(cluster.admin(last.url(), "POST", "/admin/keys/" + Fingerprint.of(GOOD) + "/enable", null)
                .statusCode()).isEqualTo(200);
    }

    @Test
    @Order(3)
    void should_act_on_every_instance_with_a_fault_injected_through_one_until_removed_through_another() throws Exception {
        ClusterFixture.Instance first = cluster.instance(0);
        HttpResponse<String> added = cluster.admin(first.url(), "POST", "/admin/faults",
                "{\"channel\":\"openai\",\"kind\":\"status\",\"status\":422,\"duration\":\"60s\"}");
        assertThat(added.statusCode()).isEqualTo(201);
        String id = JSON.readTree(added.body()).path("id").asText();

        for (ClusterFixture.Instance other : cluster.instances().subList(1, 3)) {
            await().atMost(Duration.ofSeconds(2)).until(() -> faultIds(other.url()).contains(id));
            HttpResponse<String> struck = cluster.chat(other.url(), "gpt-4o-mini");
            assertThat(struck.statusCode()).as("through %s", other.name()).isEqualTo(422);
            assertThat(struck.body()).contains("injected fault " + id);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(cluster.chat(balancer, "gpt-4o-mini").statusCode()).as("through nginx").isEqualTo(422);
        }

        assertThat(cluster.admin(cluster.instance(2).url(), "DELETE", "/admin/faults/" + id, null).statusCode())
                .isEqualTo(200);
        for (ClusterFixture.Instance instance : cluster.instances().subList(0, 2)) {
            await().atMost(Duration.ofSeconds(2)).until(() -> !faultIds(instance.url()).contains(id));
        }
        assertThat(cluster.chat(first.url(), "gpt-4o-mini").statusCode()).isEqualTo(200);
    }

    @Test
    @Order(4)
    void should_list_the_three_instances_and_reload_each_of_them_through_nginx() throws Exception {
        JsonNode status = JSON.readTree(cluster.admin(balancer, "GET", "/admin/status", null).body());
        JsonNode instances = status.at("/cluster/instances");
        assertThat(instances).hasSize(3);
        for (ClusterFixture.Instance instance : cluster.instances()) {
            assertThat(instances).anySatisfy(node -> {
                assertThat(node.path("id").asText()).endsWith(instance.idSuffix());
                assertThat(node.path("state").asText()).isEqualTo("up");
                assertThat(node.path("version").asText()).isNotBlank().isNotEqualTo("unknown");
                assertThat(node.path("startedAt").asText()).isNotBlank();
                assertThat(node.path("lastHeartbeat").asText()).isNotBlank();
                assertThat(node.path("configDigest").asText()).hasSize(16);
            });
        }
        assertThat(status.at("/cluster/configMismatch").asBoolean()).isFalse();
        // the deployment files' liveness path, as their readiness path, which the fixture waited on
        cluster.instances().forEach(i -> assertThat(cluster.get(i.url() + ClusterFixture.LIVE_PATH).statusCode()).isEqualTo(200));

        HttpResponse<String> reload = cluster.admin(balancer, "POST", "/admin/reload", null);
        assertThat(reload.statusCode()).as(reload.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(reload.body());
        assertThat(answer.path("scope").asText()).isEqualTo("cluster");
        assertThat(answer.path("instances")).hasSize(3).allSatisfy(node -> {
            assertThat(node.path("status").asInt()).isEqualTo(200);
            assertThat(node.at("/answer/summary").asText()).startsWith("channels 0 added, 1 kept");
        });
    }

    @Test
    @Order(5)
    void should_flag_and_log_instances_that_run_different_files() throws Exception {
        ClusterFixture.Instance changed = cluster.instance(1);
        Path file = changed.dir().resolve("keypool.yaml");
        String original = Files.readString(file);
        Files.writeString(file, "# edited on this instance only\n", StandardOpenOption.APPEND);
        assertThat(cluster.admin(changed.url(), "POST", "/admin/reload?scope=instance", null).statusCode()).isEqualTo(200);

        ClusterFixture.Instance first = cluster.instance(0);
        await().atMost(Duration.ofSeconds(5)).until(() -> JSON.readTree(cluster.admin(first.url(), "GET", "/admin/status",
                null).body()).at("/cluster/configMismatch").asBoolean());
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.readString(first.log())
                .contains("Instances run different keypool.yaml files"));

        Files.writeString(file, original);
        assertThat(cluster.admin(balancer, "POST", "/admin/reload?scope=cluster", null).statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(5)).until(() -> !JSON.readTree(cluster.admin(first.url(), "GET", "/admin/status",
                null).body()).at("/cluster/configMismatch").asBoolean());
    }

    @Test
    @Order(6)
    void should_show_a_killed_instance_as_gone_and_reload_the_others() throws Exception {
        ClusterFixture.Instance killed = cluster.instance(2);
        cluster.kill(killed);

        await().atMost(HEARTBEAT.multipliedBy(3).plusSeconds(5)).until(() -> {
            JsonNode instances = JSON.readTree(cluster.admin(balancer, "GET", "/admin/status", null).body())
                    .at("/cluster/instances");
            return instances.size() == 3 && stream(instances).anyMatch(node ->
                    node.path("id").asText().endsWith(killed.idSuffix()) && node.path("state").asText().equals("gone"));
        });

        HttpResponse<String> reload = cluster.admin(balancer, "POST", "/admin/reload", null);
        assertThat(reload.statusCode()).as(reload.body()).isEqualTo(200);
        assertThat(JSON.readTree(reload.body()).path("instances")).hasSize(2)
                .noneSatisfy(node -> assertThat(node.path("instance").asText()).endsWith(killed.idSuffix()));
    }

    /** The key's state as this instance's /admin/status shows it. */
    private String keyState(String url, String key) {
        try {
            JsonNode status = JSON.readTree(cluster.admin(url, "GET", "/admin/status", null).body());
            for (JsonNode k : status.at("/channels/0/keys")) {
                if (k.path("fingerprint").asText().equals(Fingerprint.of(key))) {
                    return k.path("state").asText();
                }
            }
            return null;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Health probes of this key the provider received (GET /models). */
    private long modelsProbes(String key) {
        return cluster.upstream.received().stream().filter(r -> key.equals(r.key()) && r.path().endsWith("/models")).count();
    }

    private List<JsonNode> events(String url) throws Exception {
        List<JsonNode> events = new ArrayList<>();
        JSON.readTree(cluster.admin(url, "GET", "/admin/events", null).body()).path("events").forEach(events::add);
        return events;
    }

    private List<String> faultIds(String url) throws Exception {
        List<String> ids = new ArrayList<>();
        JSON.readTree(cluster.admin(url, "GET", "/admin/faults", null).body()).path("faults")
                .forEach(fault -> ids.add(fault.path("id").asText()));
        return ids;
    }

    private static Stream<JsonNode> stream(JsonNode array) {
        List<JsonNode> nodes = new ArrayList<>();
        array.forEach(nodes::add);
        return nodes.stream();
    }
}
