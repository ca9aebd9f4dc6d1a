package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sticky: user} (design §16) over HTTP: the end user named by OpenAI's {@code user} field stays on one target
 * of the group while it is usable, moves when its target's breaker is forced open, and comes back when it closes.
 */
class StickyUserTest extends GatewayTestSupport {

    private static final String ADMIN = "admin-sticky-user-8d2f";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [alpha-chat]
                    keys:
                      - key: sk-sticky-alpha-2
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [beta-chat]
                    keys:
                      - key: sk-sticky-beta-2
                modelGroups:
                  - name: sticky-chat
                    sticky: user
                    targets:
                      - {channel: alpha, model: alpha-chat}
                      - {channel: beta, model: beta-chat}
                admin:
                  token: %s
                """.formatted(ADMIN);
    }

    @Test
    void should_keep_each_user_on_its_target_while_usable_and_bring_it_back() throws Exception {
        String alice = channelOf("alice@example.com");
        String bob = channelOf("bob@example.com");
        // equal weights drawn at random would put 20 requests in a row on one target once in 500,000
        for (int i = 0; i < 20; i++) {
            assertThat(channelOf("alice@example.com")).isEqualTo(alice);
            assertThat(channelOf("bob@example.com")).isEqualTo(bob);
        }

        forceBreaker(alice, "OPEN");
        String elsewhere = alice.equals("alpha") ? "beta" : "alpha";
        Set<String> whileOpen = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            whileOpen.add(channelOf("alice@example.com"));
        }
        assertThat(whileOpen).containsExactly(elsewhere);

        forceBreaker(alice, "CLOSED");
        for (int i = 0; i < 5; i++) {
            assertThat(channelOf("alice@example.com")).isEqualTo(alice);
        }
    }

    private String channelOf(String user) throws Exception {
        HttpResponse<String> answer = post("/v1/chat/completions", "{\"model\":\"sticky-chat\",\"user\":\"" + user
                + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return answer.headers().firstValue("X-KeyPool-Channel").orElseThrow();
    }

    private void forceBreaker(String channel, String state) throws Exception {
        HttpResponse<String> forced = http.send(HttpRequest.newBuilder(URI.create(url("/admin/channels/" + channel + "/breaker")))
                .header("Authorization", "Bearer " + ADMIN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"state\":\"" + state + "\",\"reason\":\"sticky test\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(forced.statusCode()).as(forced.body()).isEqualTo(200);
    }
}
