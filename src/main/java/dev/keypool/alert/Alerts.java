package dev.keypool.alert;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.keypool.breaker.BreakerState;
import dev.keypool.breaker.BreakerStateChange;
import dev.keypool.config.AlertsConfig;
import dev.keypool.config.TenantConfig;
import dev.keypool.events.StateChange;
import dev.keypool.events.StateListener;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import dev.keypool.pool.KeyStateChange;
import dev.keypool.quota.KeyQuota;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.Tenants;

/**
 * The alert rules of keypool.yaml ({@code alerts:}), each on unless turned off. A key disabled, a breaker opened and a
 * channel left without a usable key are heard as they happen ({@link StateListener}); quotas, budgets, errors and the
 * request log are looked at by {@link #check()}, which a timer calls. Each alert passes the {@link AlertThrottle} (one
 * per rule and subject per period) and goes to {@code out}, which must not block: it is called on the thread of the
 * change, a request's. A throttle that asks Redis is not asked there: the alert is handed off first ({@code handOff},
 * which must not block either), and whoever takes it calls {@link #raise}.
 */
public final class Alerts implements StateListener {

    /** The windows a quota alert watches: a minute window fills and empties every minute and says nothing lasting. */
    private static final Set<KeyQuota.Window> LASTING = EnumSet.of(KeyQuota.Window.RPD, KeyQuota.Window.TPD,
            KeyQuota.Window.TPM_MONTH);

    private final AlertsConfig settings;
    private final Channels channels;
    private final Tenants tenants;
    private final List<TenantConfig> budgets;
    private final LongSupplier requestLogDropped;
    private final Clock clock;
    private final AlertThrottle throttle;
    private final ChannelErrors errors;
    private final Consumer<Alert> out;
    private final Consumer<Alert> handOff;
    // guarded by this (check)
    private long requestLogDroppedBefore;
    private volatile Supplier<Duration> aloneFor = () -> Duration.ZERO;
    private volatile Duration aloneAfter = Duration.ZERO;

    /**
     * @param budgets           the tenants as configured, for their budgets
     * @param requestLogDropped the request-log rows lost so far
     */
    public Alerts(AlertsConfig settings, Channels channels, Tenants tenants, List<TenantConfig> budgets,
                  LongSupplier requestLogDropped, Clock clock, Consumer<Alert> out) {
        this(settings, channels, tenants, budgets, requestLogDropped, clock, new LocalAlertThrottle(settings.period(), clock),
                null, out);
    }

    /**
     * @param throttle the throttle shared by the instances
     * @param handOff  takes an alert off the thread of the change, to {@link #raise} it later; null: raised there
     */
    public Alerts(AlertsConfig settings, Channels channels, Tenants tenants, List<TenantConfig> budgets,
                  LongSupplier requestLogDropped, Clock clock, AlertThrottle throttle, Consumer<Alert> handOff,
                  Consumer<Alert> out) {
        this.settings = settings;
        this.channels = channels;
        this.tenants = tenants;
        this.budgets = List.copyOf(budgets);
        this.requestLogDropped = requestLogDropped;
        this.clock = clock;
        this.throttle = throttle;
        this.errors = new ChannelErrors(settings.channelErrorWindow());
        this.out = out;
        this.handOff = handOff;
        this.requestLogDroppedBefore = requestLogDropped.getAsLong();
    }

    @Override
    public void stateChanged(StateChange change) {
        if (change instanceof KeyStateChange key && key.toState() != key.fromState()) {
            if (key.toState() == KeyState.DISABLED) {
                fire(AlertRule.KEY_DISABLED, key.channel() + "/" + key.fingerprint(), key.channel(), key.message());
            }
            if (key.toState() != KeyState.ACTIVE) {
                channels.get(key.channel()).ifPresent(this::checkUsable);
            }
        } else if (change instanceof BreakerStateChange breaker && breaker.toState() == BreakerState.OPEN
                && breaker.fromState() != BreakerState.OPEN) {
            fire(AlertRule.BREAKER_OPENED, breaker.channel(), breaker.channel(), breaker.message());
        }
    }

    private void checkUsable(Channel channel) {
        KeyPool pool = channel.pool();
        if (pool.keys().isEmpty() || pool.selection().hasActiveKey()) {
            return;
        }
        long disabled = pool.keys().stream().filter(k -> pool.stateOf(k) == KeyState.DISABLED).count();
        long cooling = pool.keys().stream().filter(k -> pool.stateOf(k) == KeyState.COOLING).count();
        fire(AlertRule.CHANNEL_UNUSABLE, channel.name(), channel.name(), "Channel " + channel.name()
                + " has no usable key: " + disabled + " disabled, " + cooling + " cooling");
    }

    /**
     * Watches the time this instance goes on alone while it shares state through Redis (rule {@code redisAlone}):
     * alerts when a check finds it alone for {@code after} or longer.
     */
    public void watchAlone(Supplier<Duration> aloneFor, Duration after) {
        this.aloneFor = aloneFor;
        this.aloneAfter = after;
    }

    /** The rules that look rather than listen; called on a timer, never on a request's thread. */
    public synchronized void check() {
        Instant now = clock.instant();
        for (Channel channel : channels.all()) {
            checkQuotas(channel);
            checkErrors(channel, now);
        }
        checkBudgets();
        long dropped = requestLogDropped.getAsLong();
        if (dropped > requestLogDroppedBefore) {
            fire(AlertRule.REQUEST_LOG_DROPPED, "request-log", "", "The request log dropped "
                    + (dropped - requestLogDroppedBefore) + " rows (" + dropped
                    + " since start): its queue is full or its database refuses them");
        }
        requestLogDroppedBefore = dropped;
        Duration alone = aloneFor.get();
        if (!alone.isZero() && alone.compareTo(aloneAfter) >= 0) {
            fire(AlertRule.REDIS_ALONE, "redis", "", "This instance has gone on alone for " + alone.toSeconds()
                    + " s: Redis is unreachable, so each instance keeps the limits by itself (at most N times each) and "
                    + "the others' key states, breakers and changes do not reach it");
        }
    }

    private void checkQuotas(Channel channel) {
        KeyPool pool = channel.pool();
        for (ApiKey key : pool.keys()) {
            for (KeyQuota.Use use : pool.quotaOf(key).use()) {
                if (LASTING.contains(use.window()) && use.used() * 100 >= (long) settings.quotaPercent() * use.limit()) {
                    fire(AlertRule.QUOTA, channel.name() + "/" + key.fingerprint() + "/" + use.window().configName(),
                            channel.name(), "Key " + key.fingerprint() + "(" + channel.name() + ") at "
                                    + Math.round(100.0 * use.used() / use.limit()) + "% of " + use.window().configName()
                                    + " (" + use.used() + "/" + use.limit() + "), resets " + use.resetsAt());
                }
            }
        }
    }

    private void checkErrors(Channel channel, Instant now) {
        long total = channel.pool().keys().stream().mapToLong(k -> k.stats().failureCount()).sum();
        long recent = errors.update(channel.name(), total, now);
        if (recent > settings.channelErrors()) {
            fire(AlertRule.CHANNEL_ERRORS, channel.name(), channel.name(), "Channel " + channel.name() + ": " + recent
                    + " failed provider calls in the last " + settings.channelErrorWindow().toMinutes()
                    + " minutes (more than " + settings.channelErrors() + ")");
        }
    }

    private void checkBudgets() {
        for (TenantConfig config : budgets) {
            Tenant tenant = tenants.named(config.name()).orElse(null);
            if (tenant == null) {
                continue;
            }
            if (config.budgetDaily() != null) {
                checkBudget(config.name(), "day", tenant.limits().spentToday(), config.budgetDaily());
            }
            if (config.budgetMonthly() != null) {
                checkBudget(config.name(), "month", tenant.limits().spentThisMonth(), config.budgetMonthly());
            }
        }
    }

    private void checkBudget(String tenant, String period, double spent, double budget) {
        String amounts = String.format(Locale.ROOT, "%.2f of %.2f USD", spent, budget);
        if (spent >= budget) {
            fire(AlertRule.TENANT_BUDGET_SPENT, tenant + "/" + period, "", "Tenant " + tenant + " has spent its "
                    + period + "'s budget (" + amounts + "): its requests are refused until it resets");
        } else if (spent * 100 >= budget * settings.budgetPercent()) {
            fire(AlertRule.TENANT_BUDGET, tenant + "/" + period, "", "Tenant " + tenant + " at "
                    + Math.round(100 * spent / budget) + "% of its " + period + "'s budget (" + amounts + ")");
        }
    }

    private void fire(AlertRule rule, String subject, String channel, String message) {
        if (!settings.on(rule.configName())) {
            return;
        }
        Alert alert = new Alert(clock.instant(), rule, subject, channel, message);
        if (handOff == null) {
            raise(alert);
        } else {
            handOff.accept(alert);
        }
    }

    /** An alert of a rule that is on: sent when the throttle lets it through. */
    public void raise(Alert alert) {
        if (throttle.allow(alert.rule(), alert.subject())) {
            out.accept(alert);
        }
    }
}
