package dev.keypool.it;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sticky: tenant} and {@code sticky: user} (design §16) over HTTP: each tenant, or each end user named by
 * OpenAI's {@code user} field, stays on one target of the group while it is usable, moves when its target's breaker is
 * forced open, and comes back when it closes. One gateway; each test has a group on channels of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StickyTargetsTest extends ModelGroupTestSupport {

    /** Who sends a request: a tenant's token, or an end user's name. */
    private interface Client {
        String channelOf(String who) throws Exception;
    }

    @Override
    protected List<String> channels() {
        return List.of("alpha", "beta", "gamma", "delta");
    }

    @Override
    protected String groups() {
        return """
                modelGroups:
                  - name: sticky-tenant
                    sticky: tenant
                    targets:
                      - {channel: alpha, model: alpha-chat}
                      - {channel: beta, model: beta-chat}
                  - name: sticky-user
                    sticky: user
                    targets:
                      - {channel: gamma, model: gamma-chat}
                      - {channel: delta, model: delta-chat}
                tenants:
                  - name: team-red
                    token: tok-sticky-red
                  - name: team-blue
                    token: tok-sticky-blue
                """;
    }

    @Test
    void should_keep_each_tenant_on_its_target_while_usable_and_bring_it_back() throws Exception {
        assertSticky(token -> channelOf(chatAs(token, "sticky-tenant")), "tok-sticky-red", "tok-sticky-blue",
                Set.of("alpha", "beta"));
    }

    @Test
    void should_keep_each_user_on_its_target_while_usable_and_bring_it_back() throws Exception {
        assertSticky(user -> channelOf(postAs("tok-sticky-red", "{\"model\":\"sticky-user\",\"user\":\"" + user
                + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")), "alice@example.com", "bob@example.com",
                Set.of("gamma", "delta"));
    }

    /** {@code first} and {@code second} each keep a target; {@code first} moves off its target while it is open, and back. */
    private void assertSticky(Client client, String first, String second, Set<String> targets) throws Exception {
        String firstTarget = client.channelOf(first);
        String secondTarget = client.channelOf(second);
        // equal weights drawn at random would put 20 requests in a row on one target once in 500,000
        for (int i = 0; i < 20; i++) {
            assertThat(client.channelOf(first)).isEqualTo(firstTarget);
            assertThat(client.channelOf(second)).isEqualTo(secondTarget);
        }

        forceBreaker(firstTarget, "OPEN");
        Set<String> whileOpen = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            whileOpen.add(client.channelOf(first));
        }
        Set<String> elsewhere = new HashSet<>(targets);
        elsewhere.remove(firstTarget);
        assertThat(whileOpen).isEqualTo(elsewhere);

        forceBreaker(firstTarget, "CLOSED");
        for (int i = 0; i < 5; i++) {
            assertThat(client.channelOf(first)).isEqualTo(firstTarget);
        }
    }
}
