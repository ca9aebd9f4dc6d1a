package dev.keypool.it;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.breaker.BreakerStateChange;
import dev.keypool.events.StateChange;
import dev.keypool.events.StateListeners;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyStateChange;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The gateway's key pools and breakers publish their state changes to the stateListeners bean. */
class StateEventsTest extends GatewayTestSupport {

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
                """;
    }

    @Test
    void should_publish_key_and_breaker_changes_to_every_listener_even_after_one_fails() throws Exception {
        StateListeners listeners = context.getRegistry().lookupByNameAndType("stateListeners", StateListeners.class);
        List<StateChange> heard = new CopyOnWriteArrayList<>();
        listeners.add(change -> {
            throw new IllegalStateException("a broken listener");
        });
        listeners.add(heard::add);
        upstream.answer("sk-alpha-1", 429, "20", null);

        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        channel("alpha").breaker().forceOpen("maintenance");

        assertThat(heard).hasSize(2);
        assertThat(heard.get(0)).isInstanceOfSatisfying(KeyStateChange.class, key -> {
            assertThat(key.fingerprint()).isEqualTo(Fingerprint.of("sk-alpha-1"));
            assertThat(key.message()).isEqualTo("Key " + Fingerprint.of("sk-alpha-1") + "(alpha) cooling 20s after 429");
        });
        assertThat(heard.get(1)).isInstanceOfSatisfying(BreakerStateChange.class, breaker ->
                assertThat(breaker.message()).isEqualTo("Channel [alpha] forced OPEN by operator: maintenance"));
        assertThat(logs.messages(Level.WARN)).filteredOn(line -> line.startsWith("State listener"))
                .hasSize(2).allSatisfy(line -> assertThat(line).contains("failed on a change of channel [alpha]"));
    }
}
