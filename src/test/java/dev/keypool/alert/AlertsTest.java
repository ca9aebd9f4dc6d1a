package dev.keypool.alert;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.keypool.config.AlertsConfig;
import dev.keypool.config.ConfigLoader;
import dev.keypool.config.GatewayConfig;
import dev.keypool.config.TenantConfig;
import dev.keypool.events.StateListeners;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.ChannelAssembly;
import dev.keypool.gateway.ChannelMeters;
import dev.keypool.gateway.Channels;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyScope;
import dev.keypool.tenant.LocalTenantLimits;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.TenantLimits;
import dev.keypool.tenant.Tenants;
import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** The rules of alerts: on real pools, breakers and tenant limits, with the injected clock. */
class AlertsTest {

    private static final String YAML = """
            channels:
              - name: alpha
                baseUrl: http://127.0.0.1:1
                models: [m]
                keys:
                  - key: sk-alpha-1
                    rpd: 10
                  - key: sk-alpha-2
            tenants:
              - name: team-a
                token: tok-team-a-0123456789
                budget: {daily: 10}
            """;

    private final MutableClock clock = new MutableClock();
    private final GatewayConfig config = new ConfigLoader(name -> null).parse(YAML, "test");
    private final StateListeners listeners = new StateListeners();
    private final Channels channels = new Channels(config.channels().stream()
            .map(new ChannelAssembly(clock, listeners, name -> ChannelMeters.NONE)::build).toList());
    private final TenantConfig teamA = config.tenants().get(0);
    private final LocalTenantLimits teamALimits = new LocalTenantLimits(teamA.name(), null, 1, null, null,
            teamA.budgetDaily(), null, clock);
    private final Tenants tenants = new Tenants(List.of(new Tenant(teamA.name(), teamA.token(), teamA.priority(),
            List.of(), List.of(), false, teamALimits)));
    private final AtomicLong requestLogDropped = new AtomicLong();
    private final List<Alert> sent = new CopyOnWriteArrayList<>();

    private Alerts alerts(AlertsConfig settings) {
        Alerts alerts = new Alerts(settings, channels, tenants, config.tenants(), requestLogDropped::get, clock, sent::add);
        listeners.add(alerts);
        return alerts;
    }

    private AlertsConfig settings(Set<String> off, int channelErrors) {
        AlertsConfig d = AlertsConfig.DEFAULT;
        return new AlertsConfig(List.of(), d.period(), off, d.quotaPercent(), d.budgetPercent(), channelErrors,
                d.channelErrorWindow());
    }

    private KeyPool pool() {
        return channels.get("alpha").map(Channel::pool).orElseThrow();
    }

    private ApiKey key(String secret) {
        return pool().find(Fingerprint.of(secret)).orElseThrow();
    }

    @Test
    void should_alert_a_disabled_key_then_a_channel_with_no_usable_key_left() {
        alerts(AlertsConfig.DEFAULT);

        pool().outcomes().recordRejected(key("sk-alpha-1"), Duration.ofMillis(5), 401);
        pool().outcomes().recordRejected(key("sk-alpha-2"), Duration.ofMillis(5), 403);

        assertThat(sent).extracting(Alert::rule, Alert::subject).containsExactly(
                tuple(AlertRule.KEY_DISABLED, "alpha/" + Fingerprint.of("sk-alpha-1")),
                tuple(AlertRule.KEY_DISABLED, "alpha/" + Fingerprint.of("sk-alpha-2")),
                tuple(AlertRule.CHANNEL_UNUSABLE, "alpha"));
        assertThat(sent.get(2).message()).isEqualTo("Channel alpha has no usable key: 2 disabled, 0 cooling");
        assertThat(sent).allSatisfy(alert -> assertThat(alert.message()).doesNotContain("sk-alpha"));
    }

    @Test
    void should_alert_an_opened_breaker_once_per_period() {
        alerts(AlertsConfig.DEFAULT);
        Channel alpha = channels.get("alpha").orElseThrow();

        alpha.breaker().forceOpen("maintenance");
        alpha.breaker().forceClosed();
        alpha.breaker().forceOpen("again");
        clock.advance(AlertsConfig.DEFAULT.period());
        alpha.breaker().forceClosed();
        alpha.breaker().forceOpen("a third time");

        assertThat(sent).extracting(Alert::rule).containsExactly(AlertRule.BREAKER_OPENED, AlertRule.BREAKER_OPENED);
        assertThat(sent).extracting(Alert::message).containsExactly(
                "Channel [alpha] forced OPEN by operator: maintenance", "Channel [alpha] forced OPEN by operator: a third time");
    }

    @Test
    void should_say_nothing_of_a_rule_turned_off() {
        alerts(settings(Set.of("keyDisabled", "channelUnusable"), 20));

        pool().outcomes().recordRejected(key("sk-alpha-1"), Duration.ofMillis(5), 401);
        pool().outcomes().recordRejected(key("sk-alpha-2"), Duration.ofMillis(5), 401);

        assertThat(sent).isEmpty();
    }

    @Test
    void should_alert_a_key_at_80_percent_of_its_day_window() {
        Alerts alerts = alerts(AlertsConfig.DEFAULT);
        for (int i = 0; i < 7; i++) {
            pool().selection().acquire(KeyScope.SHARED, Set.of(Fingerprint.of("sk-alpha-2")), () -> 0, null);
        }
        alerts.check();
        assertThat(sent).isEmpty();

        pool().selection().acquire(KeyScope.SHARED, Set.of(Fingerprint.of("sk-alpha-2")), () -> 0, null);
        alerts.check();

        assertThat(sent).singleElement().satisfies(alert -> {
            assertThat(alert.rule()).isEqualTo(AlertRule.QUOTA);
            assertThat(alert.subject()).isEqualTo("alpha/" + Fingerprint.of("sk-alpha-1") + "/rpd");
            assertThat(alert.message()).startsWith("Key " + Fingerprint.of("sk-alpha-1") + "(alpha) at 80% of rpd (8/10)");
        });
    }

    @Test
    void should_alert_more_errors_than_allowed_on_a_channel_within_the_window() {
        Alerts alerts = alerts(settings(Set.of("keyDisabled", "channelUnusable"), 2));
        pool().outcomes().recordFailure(key("sk-alpha-1"), Duration.ofMillis(5), "503");
        pool().outcomes().recordFailure(key("sk-alpha-2"), Duration.ofMillis(5), "503");
        alerts.check();
        assertThat(sent).isEmpty();

        pool().outcomes().recordFailure(key("sk-alpha-2"), Duration.ofMillis(5), "timeout");
        alerts.check();

        assertThat(sent).singleElement().satisfies(alert -> {
            assertThat(alert.rule()).isEqualTo(AlertRule.CHANNEL_ERRORS);
            assertThat(alert.message()).isEqualTo("Channel alpha: 3 failed provider calls in the last 5 minutes (more than 2)");
        });
    }

    @Test
    void should_forget_errors_older_than_the_window() {
        Alerts alerts = alerts(settings(Set.of("keyDisabled", "channelUnusable"), 2));
        pool().outcomes().recordFailure(key("sk-alpha-1"), Duration.ofMillis(5), "503");
        pool().outcomes().recordFailure(key("sk-alpha-2"), Duration.ofMillis(5), "503");
        alerts.check();
        clock.advance(AlertsConfig.DEFAULT.channelErrorWindow().plusSeconds(2));

        pool().outcomes().recordFailure(key("sk-alpha-2"), Duration.ofMillis(5), "503");
        alerts.check();

        assertThat(sent).isEmpty();
    }

    @Test
    void should_alert_a_tenant_budget_at_80_percent_and_when_spent() {
        Alerts alerts = alerts(AlertsConfig.DEFAULT);
        spend(8.0);
        alerts.check();
        spend(2.5);
        alerts.check();

        assertThat(sent).extracting(Alert::rule, Alert::subject).containsExactly(
                tuple(AlertRule.TENANT_BUDGET, "team-a/day"),
                tuple(AlertRule.TENANT_BUDGET_SPENT, "team-a/day"));
        assertThat(sent.get(0).message()).isEqualTo("Tenant team-a at 80% of its day's budget (8.00 of 10.00 USD)");
    }

    private void spend(double usd) {
        TenantLimits.Admitted admitted = (TenantLimits.Admitted) teamALimits.admit(() -> 0);
        teamALimits.settle(admitted, OptionalLong.of(0), true, usd);
    }

    @Test
    void should_alert_request_log_rows_dropped_since_the_last_check() {
        Alerts alerts = alerts(AlertsConfig.DEFAULT);
        alerts.check();
        requestLogDropped.addAndGet(3);
        alerts.check();
        alerts.check();

        assertThat(sent).singleElement().satisfies(alert -> {
            assertThat(alert.rule()).isEqualTo(AlertRule.REQUEST_LOG_DROPPED);
            assertThat(alert.message()).startsWith("The request log dropped 3 rows");
        });
    }

    @Test
    void should_alert_an_instance_alone_without_redis_for_a_whole_check() {
        Alerts alerts = alerts(AlertsConfig.DEFAULT);
        AtomicReference<Duration> alone = new AtomicReference<>(Duration.ZERO);
        alerts.watchAlone(alone::get, Duration.ofSeconds(10));
        alerts.check();
        alone.set(Duration.ofSeconds(4));
        alerts.check();
        assertThat(sent).isEmpty();

        alone.set(Duration.ofSeconds(12));
        alerts.check();

        assertThat(sent).singleElement().satisfies(alert -> {
            assertThat(alert.rule()).isEqualTo(AlertRule.REDIS_ALONE);
            assertThat(alert.subject()).isEqualTo("redis");
            assertThat(alert.message()).startsWith("This instance has gone on alone for 12 s");
        });
    }

    @Test
    void should_name_every_rule_as_keypool_yaml_does() {
        assertThat(Arrays.stream(AlertRule.values()).map(AlertRule::configName).toList())
                .containsExactlyInAnyOrderElementsOf(AlertsConfig.RULES);
    }
}
