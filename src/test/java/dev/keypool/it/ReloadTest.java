package dev.keypool.it;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.BreakerState;
import dev.keypool.breaker.ChannelBreaker;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import dev.keypool.quota.KeyQuota;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * POST /admin/reload re-reads keypool.yaml: keys with an unchanged fingerprint keep state, counters and quota use,
 * channels that stay keep their breaker, removed keys drain, new channels get their route; an invalid file changes
 * nothing and is answered 400 with every problem.
 */
class ReloadTest extends GatewayTestSupport {

    private static final String FIRST = """
            channels:
              - name: alpha
                baseUrl: UPSTREAM
                models: [gpt-test]
                keys:
                  - key: sk-alpha-1
                    rpd: 100
                  - key: sk-alpha-2
            admin:
              token: admin-secret-token
            """;

    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return FIRST;
    }

    private void rewrite(String yaml) throws Exception {
        Path file = Path.of(context.resolvePropertyPlaceholders("{{keypool.config}}"));
        Files.writeString(file, yaml.replace("UPSTREAM", upstream.baseUrl()));
    }

    @Test
    void should_keep_what_stays_and_add_what_is_new() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        upstream.answer("sk-alpha-1", 429, "300", null);
        chat("gpt-test");                      // key 1 cools for 300 s, key 2 serves
        upstream.healthy("sk-alpha-1");
        KeyPool pool = channel("alpha").pool();
        ApiKey one = pool.find(Fingerprint.of("sk-alpha-1")).orElseThrow();
        long callsBefore = one.stats().callCount();
        ChannelBreaker breaker = channel("alpha").breaker();
        admin.post("/admin/channels/alpha/breaker", "{\"state\":\"OPEN\",\"reason\":\"before reload\"}");

        rewrite("""
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                        rpd: 100
                        weight: 3
                      - key: sk-alpha-3
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [gpt-beta]
                    keys:
                      - key: sk-beta-1
                admin:
                  token: admin-secret-token
                """);
        HttpResponse<String> reloaded = admin.post("/admin/reload");

        assertThat(reloaded.statusCode()).isEqualTo(200);
        JsonNode answer = mapper.readTree(reloaded.body());
        assertThat(answer.path("summary").asText()).isEqualTo("channels 1 added, 1 kept, 0 removed; keys 1 added, 1 removed");
        assertThat(answer.path("keys").path("alpha").path("removed").get(0).asText()).isEqualTo(Fingerprint.of("sk-alpha-2"));
        // the same pool and key objects: state, counters and quota use stay
        assertThat(channel("alpha").pool()).isSameAs(pool);
        assertThat(pool.find(Fingerprint.of("sk-alpha-1"))).containsSame(one);
        assertThat(pool.stateOf(one)).isEqualTo(KeyState.COOLING);
        assertThat(one.stats().callCount()).isEqualTo(callsBefore);
        assertThat(one.weight()).isEqualTo(3);
        assertThat(pool.quotaOf(one).use()).singleElement().satisfies(use -> {
            assertThat(use.window()).isEqualTo(KeyQuota.Window.RPD);
            assertThat(use.used()).isEqualTo(1);
        });
        // the channel's breaker too: still forced OPEN
        assertThat(channel("alpha").breaker()).isSameAs(breaker);
        assertThat(breaker.state()).isEqualTo(BreakerState.OPEN);
        admin.post("/admin/channels/alpha/breaker", "{\"state\":\"CLOSED\"}");
        // key 2 is gone, key 3 serves, the new channel has its route
        HttpResponse<String> served = chat("gpt-test");
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.headers().firstValue("X-KeyPool-Key")).contains(Fingerprint.of("sk-alpha-3"));
        HttpResponse<String> beta = chat("gpt-beta");
        assertThat(beta.statusCode()).isEqualTo(200);
        assertThat(beta.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(logs.messages(Level.INFO)).contains("Key " + Fingerprint.of("sk-alpha-2") + "(alpha) removed by reload, draining: 0 in flight finish")
                .contains("Channel [beta] added by reload");
        assertThat(upstream.hits("sk-alpha-2")).isEqualTo(1);

        // and a channel removed: its model is gone
        rewrite(FIRST);
        assertThat(admin.post("/admin/reload").statusCode()).isEqualTo(200);
        assertThat(chat("gpt-beta").statusCode()).isEqualTo(404);
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
    }

    @Test
    void should_refuse_an_invalid_file_with_every_problem_and_keep_running_the_old_one() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        rewrite("""
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    strategy: fastest
                    keys:
                      - key: sk-alpha-1
                        weight: 0
                    fallback: [nowhere]
                admin:
                  token: admin-secret-token
                """);

        HttpResponse<String> refused = admin.post("/admin/reload");

        assertThat(refused.statusCode()).isEqualTo(400);
        JsonNode error = mapper.readTree(refused.body()).path("error");
        assertThat(error.path("code").asText()).isEqualTo("invalid_config");
        assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.path("problems")).hasSize(3);
        assertThat(error.path("message").asText()).contains("channels[0].strategy").contains("channels[0].keys[0].weight")
                .contains("channels[0].fallback[0]").contains("unchanged").doesNotContain("sk-alpha-1");
        assertThat(channel("alpha").pool().keys()).hasSize(2);
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
    }

    @Test
    void should_reload_alone_as_a_cluster_of_one_when_asked_and_refuse_an_unknown_scope() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        JsonNode status = mapper.readTree(admin.call("GET", "/admin/status", null).body());
        String self = status.path("instance").asText();
        assertThat(status.at("/cluster/shared").asBoolean()).isFalse();
        assertThat(status.at("/cluster/instances")).singleElement().satisfies(instance -> {
            assertThat(instance.path("id").asText()).isEqualTo(self);
            assertThat(instance.path("state").asText()).isEqualTo("up");
            assertThat(instance.path("configDigest").asText()).hasSize(16);
        });

        HttpResponse<String> cluster = admin.post("/admin/reload?scope=cluster");
        assertThat(cluster.statusCode()).isEqualTo(200);
        JsonNode answer = mapper.readTree(cluster.body());
        assertThat(answer.path("scope").asText()).isEqualTo("cluster");
        assertThat(answer.path("instances")).singleElement().satisfies(instance -> {
            assertThat(instance.path("instance").asText()).isEqualTo(self);
            assertThat(instance.path("status").asInt()).isEqualTo(200);
            assertThat(instance.at("/answer/summary").asText()).startsWith("channels 0 added, 1 kept");
        });

        HttpResponse<String> unknown = admin.post("/admin/reload?scope=everywhere");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(mapper.readTree(unknown.body()).at("/error/code").asText()).isEqualTo("invalid_scope");
    }
}
