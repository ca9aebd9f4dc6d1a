package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.gateway.Channel;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyState;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * POST /admin/keys/{fingerprint}/enable|disable|drain and PATCH /admin/keys/{fingerprint}, over HTTP. The tests share one
 * gateway, each on a channel with keys of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminKeysTest extends GatewayTestSupport {

    private final ObjectMapper mapper = new ObjectMapper();
    private AdminCalls admin;

    /** Each test's own channel alpha, named after the test, serving one model of that name with two keys of its own. */
    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("""
                admin:
                  token: admin-secret-token
                channels:
                """);
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        keys:
                          - key: sk-%1$s-1
                          - key: sk-%1$s-2
                    """.formatted(test));
        }
        return yaml.toString();
    }

    /** The first key of this test's channel, raw; its fingerprint is {@link #one()}. */
    private String rawOne() {
        return "sk-" + testName() + "-1";
    }

    private String rawTwo() {
        return "sk-" + testName() + "-2";
    }

    private String one() {
        return Fingerprint.of(rawOne());
    }

    private String two() {
        return Fingerprint.of(rawTwo());
    }

    /** This test's channel. */
    private Channel alpha() {
        return channel(testName());
    }

    /** How the log and the events name a key of this test's channel. */
    private String named(String fingerprint) {
        return "Key " + fingerprint + "(" + testName() + ")";
    }

    private HttpResponse<String> chat() throws Exception {
        return chat(testName());
    }

    private AdminCalls admin() {
        if (admin == null) {
            admin = new AdminCalls(http, url(""));
        }
        return admin;
    }

    @Test
    void should_refuse_every_admin_call_without_the_token() throws Exception {
        for (String path : new String[] {"/admin/keys/" + one() + "/disable", "/admin/keys/" + one() + "/drain",
                "/admin/keys/" + one() + "/enable", "/admin/channels/" + testName() + "/breaker", "/admin/reload"}) {
            HttpResponse<String> r = admin().call("POST", path, "{}", "wrong-token");
            assertThat(r.statusCode()).as(path).isEqualTo(401);
            assertThat(r.body()).contains("\"code\":\"invalid_admin_token\"");
        }
        assertThat(admin().call("PATCH", "/admin/keys/" + one(), "{\"weight\":2}", null).statusCode()).isEqualTo(401);
        assertThat(admin().call("GET", "/admin/events", null, null).statusCode()).isEqualTo(401);
        assertThat(alpha().pool().stateOf(alpha().pool().find(one()).orElseThrow())).isEqualTo(KeyState.ACTIVE);
    }

    @Test
    void should_take_a_disabled_key_out_of_rotation_until_enabled() throws Exception {
        HttpResponse<String> disabled = admin().post("/admin/keys/" + one() + "/disable");

        assertThat(disabled.statusCode()).isEqualTo(200);
        JsonNode answer = mapper.readTree(disabled.body());
        assertThat(answer.path("fingerprint").asText()).isEqualTo(one());
        assertThat(answer.path("channels").get(0).path("state").asText()).isEqualTo("DISABLED");
        for (int i = 0; i < 4; i++) {
            assertThat(chat().headers().firstValue("X-KeyPool-Key")).contains(two());
        }
        assertThat(upstream.hits(rawOne())).isZero();
        assertThat(logs.messages(Level.WARN)).contains(named(one()) + " disabled by operator");

        assertThat(admin().post("/admin/keys/" + one() + "/enable").statusCode()).isEqualTo(200);
        for (int i = 0; i < 4; i++) {
            chat();
        }
        assertThat(upstream.hits(rawOne())).isEqualTo(2);
        assertThat(logs.messages(Level.INFO)).contains(named(one()) + " enabled by operator, ACTIVE");
    }

    @Test
    void should_let_calls_in_flight_finish_on_a_drained_key_and_send_it_no_new_ones() throws Exception {
        upstream.holdAnswers();
        var inFlight = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return chat();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        org.awaitility.Awaitility.await().until(() -> upstream.heldAnswers() == 1);
        String busy = upstream.received().isEmpty() ? one() : Fingerprint.of(upstream.received().get(0).key());

        HttpResponse<String> drained = admin().post("/admin/keys/" + busy + "/drain");
        upstream.releaseAnswers();

        assertThat(drained.statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(drained.body()).path("channels").get(0).path("draining").asBoolean()).isTrue();
        HttpResponse<String> finished = inFlight.get();
        assertThat(finished.statusCode()).isEqualTo(200);
        assertThat(finished.headers().firstValue("X-KeyPool-Key")).contains(busy);
        String other = busy.equals(one()) ? two() : one();
        for (int i = 0; i < 3; i++) {
            assertThat(chat().headers().firstValue("X-KeyPool-Key")).contains(other);
        }
        assertThat(logs.messages(Level.INFO)).contains(named(busy) + " draining by operator: no new requests, 1 in flight finish");
        JsonNode status = mapper.readTree(admin().get("/admin/status").body());
        JsonNode alpha = null;
        for (JsonNode channel : status.path("channels")) {
            alpha = channel.path("name").asText().equals(testName()) ? channel : alpha;
        }
        assertThat(alpha.path("keys").findValues("draining").stream().map(JsonNode::asBoolean))
                .containsExactlyInAnyOrder(true, false);
    }

    @Test
    void should_change_weight_and_limits_live() throws Exception {
        HttpResponse<String> patched = admin().call("PATCH", "/admin/keys/" + one(), "{\"weight\":3,\"rpm\":2}");

        assertThat(patched.statusCode()).isEqualTo(200);
        JsonNode key = mapper.readTree(patched.body()).path("channels").get(0);
        assertThat(key.path("weight").asInt()).isEqualTo(3);
        assertThat(key.path("limits").path("rpm").asLong()).isEqualTo(2);
        assertThat(logs.messages(Level.INFO)).contains(named(one()) + " changed by operator: weight 1 -> 3, rpm none -> 2");
        for (int i = 0; i < 8; i++) {
            chat();
        }
        // the new rpm: key one takes 2 calls in this minute whatever its weight, key two the rest
        assertThat(upstream.hits(rawOne())).isEqualTo(2);
        assertThat(upstream.hits(rawTwo())).isEqualTo(6);

        // null gives the file's value back
        assertThat(admin().call("PATCH", "/admin/keys/" + one(), "{\"rpm\":null}").statusCode()).isEqualTo(200);
        assertThat(alpha().pool().quotaOf(alpha().pool().find(one()).orElseThrow()).limited()).isFalse();
    }

    @Test
    void should_answer_bad_changes_with_every_problem() throws Exception {
        HttpResponse<String> bad = admin().call("PATCH", "/admin/keys/" + one(), "{\"weight\":0,\"rpn\":5,\"tpm\":\"lots\"}");

        assertThat(bad.statusCode()).isEqualTo(400);
        JsonNode error = mapper.readTree(bad.body()).path("error");
        assertThat(error.path("code").asText()).isEqualTo("invalid_change");
        assertThat(error.path("message").asText()).contains("weight: must be >= 1").contains("rpn: unknown field")
                .contains("tpm: must be a whole number or null");

        HttpResponse<String> unknown = admin().post("/admin/keys/0000000000000000/disable");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(mapper.readTree(unknown.body()).path("error").path("code").asText()).isEqualTo("key_not_found");
    }

    @Test
    void should_list_the_changes_as_events() throws Exception {
        admin().post("/admin/keys/" + one() + "/disable");
        admin().post("/admin/keys/" + one() + "/enable");

        // the key's changes, not the alert its disabling raised (AlertWebhookTest) nor other tests' changes
        List<JsonNode> events = new ArrayList<>();
        mapper.readTree(admin().get("/admin/events").body()).path("events").forEach(event -> {
            if (!event.path("type").asText().equals("alert") && event.path("key").asText().equals(one())) {
                events.add(event);
            }
        });

        assertThat(events).hasSize(2);
        assertThat(events.get(0).path("key").asText()).isEqualTo(one());
        assertThat(Map.of("from", events.get(0).path("from").asText(), "to", events.get(0).path("to").asText()))
                .containsEntry("from", "ACTIVE").containsEntry("to", "DISABLED");
        assertThat(events.get(1).path("message").asText()).isEqualTo(named(one()) + " enabled by operator, ACTIVE");
        assertThat(events.get(1).path("id").asLong()).isGreaterThan(events.get(0).path("id").asLong());
        JsonNode since = mapper.readTree(admin().get("/admin/events?since=" + events.get(0).path("id").asLong()).body())
                .path("events");
        assertThat(since).extracting(event -> event.path("id").asLong())
                .doesNotContain(events.get(0).path("id").asLong()).contains(events.get(1).path("id").asLong());
    }
}
