package dev.keypool.gateway;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.breaker.BreakerState;
import dev.keypool.config.Api;
import dev.keypool.config.ChannelConfig;
import dev.keypool.config.ConfigLoader;
import dev.keypool.config.GatewayConfig;
import dev.keypool.config.KeyConfig;
import dev.keypool.events.StateChange;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.QuotaLimits;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** What a reload keeps of the running channels, and what it makes anew. */
class ChannelAssemblyTest {

    private final List<StateChange> heard = new CopyOnWriteArrayList<>();
    private final ChannelAssembly assembly = new ChannelAssembly(Clock.systemUTC(), heard::add, name -> ChannelMeters.NONE);

    private static GatewayConfig config(String channels) {
        return new ConfigLoader(name -> null).parse("channels:\n" + channels, "test");
    }

    private static final String ALPHA = """
              - name: alpha
                baseUrl: http://127.0.0.1:1
                models: [m-alpha]
                keys:
                  - key: sk-a1
                  - key: sk-a2
            """;
    private static final String BETA = """
              - name: beta
                baseUrl: http://127.0.0.1:2
                models: [m-beta]
                keys:
                  - key: sk-b1
            """;

    @Test
    void should_reload_a_kept_key_with_the_weight_and_limits_in_force_and_keep_its_count() {
        Channels channels = new Channels(config(ALPHA).channels().stream().map(assembly::build).toList());
        ApiKey a1 = channels.get("alpha").orElseThrow().pool().find(Fingerprint.of("sk-a1")).orElseThrow();
        QuotaLimits rpm1 = new QuotaLimits(1L, null, null, null, null);
        // an operator's weight and rpm for sk-a1, laid over the file's (none)
        assembly.tuneKeysBy(new ChannelAssembly.Tuning() {
            @Override
            public int weight(ChannelConfig channel, KeyConfig key) {
                return key.key().equals("sk-a1") ? 3 : key.weight();
            }

            @Override
            public QuotaLimits limits(ChannelConfig channel, KeyConfig key) {
                return key.key().equals("sk-a1") ? rpm1 : key.limits();
            }
        });
        KeyPool pool = channels.get("alpha").orElseThrow().pool();
        pool.controls().tune(a1.fingerprint(), 3, rpm1);
        assertThat(pool.quotaOf(a1).tryReserve(0, true)).isPresent();

        assembly.reload(channels, config(ALPHA + BETA).channels());

        // never the file's in between: the window keeps its request of the minute
        assertThat(a1.weight()).isEqualTo(3);
        assertThat(pool.quotaOf(a1).used(KeyQuota.Window.RPM)).isEqualTo(1);
        assertThat(pool.quotaOf(a1).fits(0, true)).isFalse();
        ApiKey b1 = channels.get("beta").orElseThrow().pool().keys().get(0);
        assertThat(b1.weight()).isEqualTo(1);
        assertThat(b1.limits()).isEqualTo(QuotaLimits.NONE);
    }

    @Test
    void should_keep_pool_breaker_and_ledger_of_a_remaining_channel_and_make_a_new_one() {
        Channels channels = new Channels(config(ALPHA).channels().stream().map(assembly::build).toList());
        Channel alpha = channels.get("alpha").orElseThrow();
        alpha.breaker().forceOpen("kept");

        ChannelAssembly.Reload reload = assembly.reload(channels, config(ALPHA.replace("sk-a2", "sk-a3") + BETA).channels());

        assertThat(reload.added()).containsExactly("beta");
        assertThat(reload.kept()).containsExactly("alpha");
        assertThat(reload.summary()).isEqualTo("channels 1 added, 1 kept, 0 removed; keys 1 added, 1 removed");
        Channel after = channels.get("alpha").orElseThrow();
        assertThat(after.pool()).isSameAs(alpha.pool());
        assertThat(after.breaker()).isSameAs(alpha.breaker());
        assertThat(after.costs()).isSameAs(alpha.costs());
        assertThat(after.breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(after.pool().keys()).extracting(ApiKey::fingerprint).containsExactly(Fingerprint.of("sk-a1"), Fingerprint.of("sk-a3"));
        assertThat(channels.plan("m-beta", Api.CHAT).chain()).extracting(Channel::name).containsExactly("beta");
        assertThat(heard).extracting(StateChange::message).contains("Channel [beta] added by reload");
    }

    @Test
    void should_drain_a_removed_channel_and_give_it_its_breaker_back_when_it_returns() {
        Channels channels = new Channels(config(ALPHA + BETA).channels().stream().map(assembly::build).toList());
        Channel beta = channels.get("beta").orElseThrow();

        assembly.reload(channels, config(ALPHA).channels());

        assertThat(channels.get("beta")).isEmpty();
        assertThat(beta.pool().keys()).isEmpty();
        assertThat(catchThrowableOfType(GatewayError.class, () -> channels.plan("m-beta", Api.CHAT)).status()).isEqualTo(404);

        assembly.reload(channels, config(ALPHA + BETA).channels());

        Channel back = channels.get("beta").orElseThrow();
        assertThat(back.breaker()).as("its route still holds this breaker").isSameAs(beta.breaker());
        assertThat(back.pool().selection().hasActiveKey()).isTrue();
        assertThat(back.breaker().state()).isEqualTo(BreakerState.CLOSED);
    }
}
