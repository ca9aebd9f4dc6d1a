package dev.keypool.probe;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.keypool.breaker.ChannelBreaker;
import dev.keypool.config.ChannelConfig;
import dev.keypool.config.ConfigLoader;
import dev.keypool.events.StateListener;
import dev.keypool.gateway.Channel;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.PoolSettings;
import dev.keypool.pool.KeyState;
import dev.keypool.pool.RoundRobinStrategy;
import dev.keypool.pool.SelectionStrategy;
import dev.keypool.testing.LogCapture;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When keys are probed (evenly spread, one in flight per key, by state) and what a probe's answer does to its key. */
class ProbeScheduleTest {

    private final MutableClock clock = new MutableClock();
    private final LogCapture logs = LogCapture.attach();

    @AfterEach
    void closeLogs() {
        logs.close();
    }

    @Test
    void should_spread_the_probes_of_n_keys_evenly_over_the_interval() {
        Channel channel = channel("probe: {interval: 60s, disabledInterval: 10m}", 4);
        ProbeSchedule schedule = new ProbeSchedule(List.of(channel), clock);
        List<ApiKey> keys = channel.pool().keys();
        schedule.coldStart().forEach(Probe::succeeded);
        assertThat(schedule.due()).isEmpty();

        // key i at i * 15 s, then every 60 s
        for (int step = 1; step <= 8; step++) {
            clock.advance(Duration.ofSeconds(15));
            List<Probe> due = schedule.due();
            assertThat(due).as("at %ds", step * 15).singleElement()
                    .extracting(Probe::key).isSameAs(keys.get(step % 4));
            due.forEach(Probe::succeeded);
        }
    }

    @Test
    void should_probe_each_key_once_however_late_it_is_asked() {
        Channel channel = channel("probe: {interval: 60s}", 2);
        ProbeSchedule schedule = new ProbeSchedule(List.of(channel), clock);

        clock.advance(Duration.ofMinutes(30));

        List<Probe> due = schedule.due();
        assertThat(due).hasSize(2);
        due.forEach(Probe::succeeded);
        assertThat(schedule.due()).isEmpty();
    }

    @Test
    void should_never_have_two_probes_of_a_key_in_flight() {
        Channel channel = channel("probe: {interval: 10s}", 1);
        ProbeSchedule schedule = new ProbeSchedule(List.of(channel), clock);
        clock.advance(Duration.ofSeconds(10));
        Probe slow = schedule.due().get(0);

        clock.advance(Duration.ofSeconds(30));
        assertThat(schedule.due()).isEmpty();
        assertThat(schedule.all()).singleElement().satisfies(p -> {
            assertThat(p.sendable()).isFalse();
            assertThat(p.outcome()).isEqualTo("skipped: a probe of this key is in flight");
        });

        slow.succeeded();
        assertThat(schedule.due()).hasSize(1);
    }

    @Test
    void should_probe_disabled_keys_every_disabled_interval_and_leave_cooling_keys_alone() {
        Channel channel = channel("probe: {interval: 0, disabledInterval: 5m}", 2);
        ProbeSchedule schedule = new ProbeSchedule(List.of(channel), clock);
        ApiKey disabled = channel.pool().keys().get(0);
        ApiKey cooling = channel.pool().keys().get(1);
        channel.pool().outcomes().recordRejected(disabled, Duration.ZERO, 401);
        channel.pool().outcomes().recordRateLimited(cooling, Duration.ZERO, Optional.of(Duration.ofHours(1)));

        clock.advance(Duration.ofMinutes(4));
        assertThat(schedule.due()).isEmpty();
        clock.advance(Duration.ofMinutes(1));

        assertThat(schedule.due()).singleElement().extracting(Probe::key).isSameAs(disabled);
    }

    @Test
    void should_move_key_state_like_a_real_call() {
        Channel channel = channel("probe: {interval: 60s, disabledInterval: 10m}\nwarmup: 3m", 3);
        ProbeSchedule schedule = new ProbeSchedule(List.of(channel), clock);
        KeyPool pool = channel.pool();
        List<ApiKey> keys = pool.keys();
        pool.outcomes().recordRejected(keys.get(2), Duration.ZERO, 401);

        List<Probe> probes = schedule.coldStart();
        probes.get(0).answered(401, Optional.empty());
        probes.get(1).answered(429, Optional.of(Duration.ofSeconds(20)));
        probes.get(2).succeeded();

        assertThat(pool.stateOf(keys.get(0))).isEqualTo(KeyState.DISABLED);
        assertThat(pool.stateOf(keys.get(1))).isEqualTo(KeyState.COOLING);
        assertThat(pool.stateOf(keys.get(2))).isEqualTo(KeyState.ACTIVE);
        assertThat(pool.selection().effectiveWeight(keys.get(2))).isEqualTo(0.2);
        assertThat(probes.get(0).stateBefore()).isEqualTo(KeyState.ACTIVE);
        assertThat(probes.get(0).stateAfter()).isEqualTo(KeyState.DISABLED);
        assertThat(probes).allMatch(p -> p.key().inFlight() == 0);
        assertThat(logs.lines()).contains(
                "WARN Key " + keys.get(0).fingerprint() + "(chat) probe failed: 401",
                "INFO Key " + keys.get(2).fingerprint() + "(chat) probe ok, DISABLED -> ACTIVE (warming up 3m)");
    }

    @Test
    void should_count_5xx_and_timeouts_towards_disable_after() {
        Channel channel = channel("probe: {interval: 1s}\ndisableAfter: 2", 1);
        ProbeSchedule schedule = new ProbeSchedule(List.of(channel), clock);
        ApiKey key = channel.pool().keys().get(0);

        schedule.all().get(0).answered(503, Optional.empty());
        assertThat(channel.pool().stateOf(key)).isEqualTo(KeyState.ACTIVE);
        schedule.all().get(0).unreachable("timeout");

        assertThat(channel.pool().stateOf(key)).isEqualTo(KeyState.DISABLED);
    }

    @Test
    void should_not_hold_a_404_of_a_provider_without_models_against_the_key() {
        Channel channel = channel("probe: {interval: 1s}\ndisableAfter: 1", 1);
        ProbeSchedule schedule = new ProbeSchedule(List.of(channel), clock);

        schedule.all().get(0).answered(404, Optional.empty());

        assertThat(channel.pool().stateOf(channel.pool().keys().get(0))).isEqualTo(KeyState.ACTIVE);
    }

    @Test
    void should_build_the_request_of_each_kind() {
        Probe models = new ProbeSchedule(List.of(channel("probe: {timeout: 3s}", 1)), clock).all().get(0);
        Probe chat = new ProbeSchedule(List.of(channel("probe: {request: chat, model: glm-4-flash}", 1)), clock).all().get(0);

        assertThat(models.method()).isEqualTo("GET");
        assertThat(models.url()).isEqualTo("https://example.com/v1/models");
        assertThat(models.body()).isNull();
        assertThat(models.timeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(chat.method()).isEqualTo("POST");
        assertThat(chat.url()).isEqualTo("https://example.com/v1/chat/completions");
        assertThat(new String(chat.body())).isEqualTo(
                "{\"model\":\"glm-4-flash\",\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}],\"max_tokens\":1}");
    }

    @Test
    void should_probe_only_channels_with_a_probe_block_on_schedule_and_every_channel_on_demand() {
        Channel probed = channel("probe: {interval: 60s}", 1);
        Channel plain = channel("", 1);
        ProbeSchedule schedule = new ProbeSchedule(List.of(probed, plain), clock);

        List<Probe> coldStart = schedule.coldStart();
        assertThat(coldStart).extracting(Probe::channel).containsExactly(probed);
        coldStart.forEach(Probe::succeeded);
        clock.advance(Duration.ofHours(1));
        List<Probe> due = schedule.due();
        assertThat(due).extracting(Probe::channel).containsExactly(probed);
        due.forEach(Probe::succeeded);
        assertThat(schedule.all()).extracting(Probe::channel).containsExactly(probed, plain);
    }

    @Test
    void should_follow_a_reload_probing_added_keys_and_no_longer_removed_ones() {
        Channel channel = channel("probe: {interval: 60s}", 2);
        ProbeSchedule schedule = new ProbeSchedule(List.of(channel), clock);
        ApiKey removed = channel.pool().keys().get(0);
        ApiKey stays = channel.pool().keys().get(1);
        schedule.coldStart().forEach(Probe::succeeded);

        ApiKey added = new ApiKey("sk-added", null, 1);
        channel.pool().reload(List.of(stays, added), new RoundRobinStrategy(), Duration.ofSeconds(60), 5);
        schedule.reload(List.of(channel));
        List<ApiKey> probed = new java.util.ArrayList<>();
        for (int step = 1; step <= 8; step++) {
            clock.advance(Duration.ofSeconds(15));
            schedule.due().forEach(probe -> {
                probed.add(probe.key());
                probe.succeeded();
            });
        }

        assertThat(probed).contains(stays, added).doesNotContain(removed);
        assertThat(schedule.all()).extracting(Probe::key).containsExactly(stays, added);
    }

    @Test
    void should_probe_only_the_channels_whose_lease_this_instance_holds() {
        Channel mine = channel("mine", "probe: {interval: 60s, disabledInterval: 10s}", 1);
        Channel theirs = channel("theirs", "probe: {interval: 60s, disabledInterval: 10s}", 1);
        Set<String> held = new HashSet<>(Set.of("mine"));
        List<Collection<String>> asked = new ArrayList<>();
        ProbeSchedule schedule = new ProbeSchedule(List.of(mine, theirs), clock, channels -> {
            asked.add(List.copyOf(channels));
            return Set.copyOf(held);
        });

        List<Probe> coldStart = schedule.coldStart();
        assertThat(coldStart).extracting(Probe::channel).containsExactly(mine);
        coldStart.forEach(Probe::succeeded);
        theirs.pool().outcomes().recordRejected(theirs.pool().keys().get(0), Duration.ZERO, 401);
        mine.pool().outcomes().recordRejected(mine.pool().keys().get(0), Duration.ZERO, 401);
        clock.advance(Duration.ofMinutes(2));
        List<Probe> due = schedule.due();
        assertThat(due).extracting(Probe::channel).containsExactly(mine);
        due.forEach(Probe::succeeded);
        assertThat(asked).allSatisfy(channels -> assertThat(channels).containsExactlyInAnyOrder("mine", "theirs"));

        // the other instance stopped renewing: this one takes the channel over at its next beat
        held.add("theirs");
        clock.advance(Duration.ofMinutes(2));
        assertThat(schedule.due()).extracting(Probe::channel).containsExactlyInAnyOrder(mine, theirs);
    }

    private Channel channel(String fields, int keyCount) {
        return channel("chat", fields, keyCount);
    }

    private Channel channel(String name, String fields, int keyCount) {
        StringBuilder yaml = new StringBuilder("""
                channels:
                  - name: %s
                    baseUrl: https://example.com/v1
                    models: [glm-4]
                    keys:
                """);
        for (int i = 0; i < keyCount; i++) {
            yaml.append("      - key: sk-").append(i).append('\n');
        }
        fields.lines().forEach(line -> yaml.append("    ").append(line).append('\n'));
        ChannelConfig c = new ConfigLoader(variable -> null).parse(yaml.toString().formatted(name), "test.yaml")
                .channels().get(0);
        List<ApiKey> keys = c.keys().stream().map(k -> new ApiKey(k.key(), k.label(), k.weight(), k.limits())).toList();
        KeyPool pool = new KeyPool(PoolSettings.builder(c.name())
                .strategy(SelectionStrategy.named(c.strategy())).cooling(c.cooling()).disableAfter(c.disableAfter())
                .quotaZone(c.quotaZone()).clock(clock).warmup(c.warmup())
                .degradedErrorRatePercent(c.breaker().errorRateThreshold()).build(),
                keys);
        return new Channel(c, pool, new ChannelBreaker(c.name(), c.breaker(), pool.selection()::hasActiveKey, clock, StateListener.NONE));
    }
}
