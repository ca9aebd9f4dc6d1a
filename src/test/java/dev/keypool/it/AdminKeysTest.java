package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyState;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** POST /admin/keys/{fingerprint}/enable|disable|drain and PATCH /admin/keys/{fingerprint}, over HTTP. */
class AdminKeysTest extends GatewayTestSupport {

    private static final String ONE = Fingerprint.of("sk-alpha-1");
    private static final String TWO = Fingerprint.of("sk-alpha-2");

    private final ObjectMapper mapper = new ObjectMapper();
    private AdminCalls admin;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                      - key: sk-alpha-2
                admin:
                  token: admin-secret-token
                """;
    }

    private AdminCalls admin() {
        if (admin == null) {
            admin = new AdminCalls(http, url(""));
        }
        return admin;
    }

    @Test
    void should_refuse_every_admin_call_without_the_token() throws Exception {
        for (String path : new String[] {"/admin/keys/" + ONE + "/disable", "/admin/keys/" + ONE + "/drain",
                "/admin/keys/" + ONE + "/enable", "/admin/channels/alpha/breaker", "/admin/reload"}) {
            HttpResponse<String> r = admin().call("POST", path, "{}", "wrong-token");
            assertThat(r.statusCode()).as(path).isEqualTo(401);
            assertThat(r.body()).contains("\"code\":\"invalid_admin_token\"");
        }
        assertThat(admin().call("PATCH", "/admin/keys/" + ONE, "{\"weight\":2}", null).statusCode()).isEqualTo(401);
        assertThat(admin().call("GET", "/admin/events", null, null).statusCode()).isEqualTo(401);
        assertThat(channel("alpha").pool().stateOf(channel("alpha").pool().find(ONE).orElseThrow())).isEqualTo(KeyState.ACTIVE);
    }

    @Test
    void should_take_a_disabled_key_out_of_rotation_until_enabled() throws Exception {
        HttpResponse<String> disabled = admin().post("/admin/keys/" + ONE + "/disable");

        assertThat(disabled.statusCode()).isEqualTo(200);
        JsonNode answer = mapper.readTree(disabled.body());
        assertThat(answer.path("fingerprint").asText()).isEqualTo(ONE);
        assertThat(answer.path("channels").get(0).path("state").asText()).isEqualTo("DISABLED");
        for (int i = 0; i < 4; i++) {
            assertThat(chat("gpt-test").headers().firstValue("X-KeyPool-Key")).contains(TWO);
        }
        assertThat(upstream.hits("sk-alpha-1")).isZero();
        assertThat(logs.messages(Level.WARN)).contains("Key " + ONE + "(alpha) disabled by operator");

        assertThat(admin().post("/admin/keys/" + ONE + "/enable").statusCode()).isEqualTo(200);
        for (int i = 0; i < 4; i++) {
            chat("gpt-test");
        }
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(2);
        assertThat(logs.messages(Level.INFO)).contains("Key " + ONE + "(alpha) enabled by operator, ACTIVE");
    }

    @Test
    void should_let_calls_in_flight_finish_on_a_drained_key_and_send_it_no_new_ones() throws Exception {
        upstream.holdAnswers();
        var inFlight = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return chat("gpt-test");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        org.awaitility.Awaitility.await().until(() -> upstream.heldAnswers() == 1);
        String busy = upstream.received().isEmpty() ? ONE : Fingerprint.of(upstream.received().get(0).key());

        HttpResponse<String> drained = admin().post("/admin/keys/" + busy + "/drain");
        upstream.releaseAnswers();

        assertThat(drained.statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(drained.body()).path("channels").get(0).path("draining").asBoolean()).isTrue();
        HttpResponse<String> finished = inFlight.get();
        assertThat(finished.statusCode()).isEqualTo(200);
        assertThat(finished.headers().firstValue("X-KeyPool-Key")).contains(busy);
        String other = busy.equals(ONE) ? TWO : ONE;
        for (int i = 0; i < 3; i++) {
            assertThat(chat("gpt-test").headers().firstValue("X-KeyPool-Key")).contains(other);
        }
        assertThat(logs.messages(Level.INFO)).contains("Key " + busy + "(alpha) draining by operator: no new requests, 1 in flight finish");
        JsonNode status = mapper.readTree(admin().get("/admin/status").body());
        assertThat(status.findValues("keys").get(0).findValues("draining").stream().map(JsonNode::asBoolean))
                .containsExactlyInAnyOrder(true, false);
    }

    @Test
    void should_change_weight_and_limits_live() throws Exception {
        HttpResponse<String> patched = admin().call("PATCH", "/admin/keys/" + ONE, "{\"weight\":3,\"rpm\":2}");

        assertThat(patched.statusCode()).isEqualTo(200);
        JsonNode key = mapper.readTree(patched.body()).path("channels").get(0);
        assertThat(key.path("weight").asInt()).isEqualTo(3);
        assertThat(key.path("limits").path("rpm").asLong()).isEqualTo(2);
        assertThat(logs.messages(Level.INFO)).contains("Key " + ONE + "(alpha) changed by operator: weight 1 -> 3, rpm none -> 2");
        for (int i = 0; i < 8; i++) {
            chat("gpt-test");
        }
        // the new rpm: key one takes 2 calls in this minute whatever its weight, key two the rest
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(2);
        assertThat(upstream.hits("sk-alpha-2")).isEqualTo(6);

        // null gives the file's value back
        assertThat(admin().call("PATCH", "/admin/keys/" + ONE, "{\"rpm\":null}").statusCode()).isEqualTo(200);
        assertThat(channel("alpha").pool().quotaOf(channel("alpha").pool().find(ONE).orElseThrow()).limited()).isFalse();
    }

    @Test
    void should_answer_bad_changes_with_every_problem() throws Exception {
        HttpResponse<String> bad = admin().call("PATCH", "/admin/keys/" + ONE, "{\"weight\":0,\"rpn\":5,\"tpm\":\"lots\"}");

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
        admin().post("/admin/keys/" + ONE + "/disable");
        admin().post("/admin/keys/" + ONE + "/enable");

        // the key's changes, not the alert its disabling raised (AlertWebhookTest)
        List<JsonNode> events = new ArrayList<>();
        mapper.readTree(admin().get("/admin/events").body()).path("events").forEach(event -> {
            if (!event.path("type").asText().equals("alert")) {
                events.add(event);
            }
        });

        assertThat(events).hasSize(2);
        assertThat(events.get(0).path("key").asText()).isEqualTo(ONE);
        assertThat(Map.of("from", events.get(0).path("from").asText(), "to", events.get(0).path("to").asText()))
                .containsEntry("from", "ACTIVE").containsEntry("to", "DISABLED");
        assertThat(events.get(1).path("message").asText()).isEqualTo("Key " + ONE + "(alpha) enabled by operator, ACTIVE");
        assertThat(events.get(1).path("id").asLong()).isGreaterThan(events.get(0).path("id").asLong());
        JsonNode since = mapper.readTree(admin().get("/admin/events?since=" + events.get(0).path("id").asLong()).body())
                .path("events");
        assertThat(since).extracting(event -> event.path("id").asLong())
                .doesNotContain(events.get(0).path("id").asLong()).contains(events.get(1).path("id").asLong());
    }
}
