package dev.keypool.admin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.breaker.BreakerState;
import dev.keypool.config.ConfigLoader;
import dev.keypool.config.GatewayConfig;
import dev.keypool.events.StateListener;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.ChannelAssembly;
import dev.keypool.gateway.ChannelMeters;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyState;
import dev.keypool.quota.QuotaLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The operators' changes laid over the file's values, kept across restarts by fingerprint. */
class RuntimeChangesTest {

    private static final String YAML = """
            channels:
              - name: alpha
                baseUrl: http://127.0.0.1:1
                models: [m]
                keys:
                  - key: sk-one
                    weight: 2
                    rpm: 60
                  - key: sk-two
                  - key: sk-three
            """;

    @TempDir
    Path dir;

    private final ObjectMapper mapper = new ObjectMapper();
    private final GatewayConfig config = new ConfigLoader(name -> null).parse(YAML, "test");
    private final ChannelAssembly assembly = new ChannelAssembly(Clock.systemUTC(), StateListener.NONE, name -> ChannelMeters.NONE);

    @Test
    void should_lay_patches_over_the_file_and_give_nulled_fields_back() {
        RuntimeChanges changes = new RuntimeChanges();
        changes.patched("alpha", Fingerprint.of("sk-one"), new KeyPatch(Map.of("weight", 5L, "rpm", 0L, "tpd", 1000L)));

        assertThat(changes.weight(config.channels().get(0), config.channels().get(0).keys().get(0))).isEqualTo(5);
        assertThat(changes.limits(config.channels().get(0), config.channels().get(0).keys().get(0)))
                .isEqualTo(new QuotaLimits(null, null, null, 1000L, null));

        java.util.Map<String, Long> back = new java.util.HashMap<>();
        back.put("weight", null);
        back.put("rpm", null);
        changes.patched("alpha", Fingerprint.of("sk-one"), new KeyPatch(back));
        assertThat(changes.weight(config.channels().get(0), config.channels().get(0).keys().get(0))).isEqualTo(2);
        assertThat(changes.limits(config.channels().get(0), config.channels().get(0).keys().get(0)))
                .isEqualTo(new QuotaLimits(60L, null, null, 1000L, null));
    }

    @Test
    void should_apply_holds_tunings_and_a_forced_breaker_to_a_channel_made_from_the_file() throws Exception {
        RuntimeChanges changes = new RuntimeChanges();
        changes.held("alpha", Fingerprint.of("sk-one"), RuntimeChanges.KeyHold.DISABLED);
        changes.held("alpha", Fingerprint.of("sk-two"), RuntimeChanges.KeyHold.DRAINING);
        changes.patched("alpha", Fingerprint.of("sk-three"), new KeyPatch(Map.of("weight", 7L)));
        changes.breakerForced("alpha", BreakerState.OPEN, "incident 42");
        // through the file, as after a restart
        RuntimeChangesFile file = new RuntimeChangesFile(dir);
        file.write(changes);
        String saved = Files.readString(dir.resolve(RuntimeChangesFile.NAME));

        Channel channel = assembly.build(config.channels().get(0));
        file.read().applyTo(channel);

        ApiKey one = channel.pool().find(Fingerprint.of("sk-one")).orElseThrow();
        assertThat(channel.pool().stateOf(one)).isEqualTo(KeyState.DISABLED);
        assertThat(channel.pool().find(Fingerprint.of("sk-two")).orElseThrow().draining()).isTrue();
        assertThat(channel.pool().find(Fingerprint.of("sk-three")).orElseThrow().weight()).isEqualTo(7);
        assertThat(channel.breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(channel.breaker().figures().trippedBy()).isEqualTo("operator: incident 42");
        assertThat(saved).doesNotContain("sk-one").contains("alpha/" + Fingerprint.of("sk-one"));
    }

    @Test
    void should_forget_a_hold_on_enable_and_a_forced_open_on_close() {
        RuntimeChanges changes = new RuntimeChanges();
        changes.held("alpha", Fingerprint.of("sk-one"), RuntimeChanges.KeyHold.DISABLED);
        changes.breakerForced("alpha", BreakerState.OPEN, "x");

        changes.enabled("alpha", Fingerprint.of("sk-one"));
        changes.breakerForced("alpha", BreakerState.CLOSED, "x");

        assertThat(changes.hold("alpha", Fingerprint.of("sk-one"))).isEmpty();
        assertThat(changes.toJson(mapper).toString()).isEqualTo("{\"version\":1,\"keys\":{},\"breakers\":{}}");
    }

    @Test
    void should_start_empty_from_a_corrupt_file() throws Exception {
        Files.writeString(dir.resolve(RuntimeChangesFile.NAME), "{broken");

        assertThat(new RuntimeChangesFile(dir).read().toJson(mapper).path("keys")).isEmpty();
    }
}
