package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sticky: tenant} (design §16) over HTTP: each tenant stays on one target of the group while it is usable, moves
 * when its target's breaker is forced open, and comes back when it closes.
 */
class StickyTenantTest extends GatewayTestSupport {

    private static final String ADMIN = "admin-sticky-tenant-3c9e";

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [alpha-chat]
                    keys:
                      - key: sk-sticky-alpha-1
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [beta-chat]
                    keys:
                      - key: sk-sticky-beta-1
                modelGroups:
                  - name: sticky-chat
                    sticky: tenant
                    targets:
                      - {channel: alpha, model: alpha-chat}
                      - {channel: beta, model: beta-chat}
                tenants:
                  - name: team-red
                    token: tok-sticky-red
                  - name: team-blue
                    token: tok-sticky-blue
                admin:
                  token: %s
                """.formatted(ADMIN);
    }

    @Test
    void should_keep_each_tenant_on_its_target_while_usable_and_bring_it_back() throws Exception {
        String red = channelOf("tok-sticky-red");
        String blue = channelOf("tok-sticky-blue");
        // equal weights drawn at random would put 20 requests in a row on one target once in 500,000
        for (int i = 0; i < 20; i++) {
            assertThat(channelOf("tok-sticky-red")).isEqualTo(red);
            assertThat(channelOf("tok-sticky-blue")).isEqualTo(blue);
        }

        forceBreaker(red, "OPEN");
        String elsewhere = red.equals("alpha") ? "beta" : "alpha";
        Set<String> whileOpen = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            whileOpen.add(channelOf("tok-sticky-red"));
        }
        assertThat(whileOpen).containsExactly(elsewhere);

        forceBreaker(red, "CLOSED");
        for (int i = 0; i < 5; i++) {
            assertThat(channelOf("tok-sticky-red")).isEqualTo(red);
        }
    }

    private String channelOf(String token) throws Exception {
        HttpResponse<String> answer = chatAs(token, "sticky-chat");
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
