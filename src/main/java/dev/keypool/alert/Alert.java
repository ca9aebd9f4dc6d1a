package dev.keypool.alert;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.keypool.events.StateChange;

/**
 * One alert: a rule found something an operator should look at. It is an event of {@code /admin/events} like a key's
 * or a breaker's change: its subject moved from {@link Status#QUIET} to {@link Status#FIRING}.
 *
 * @param subject what the rule speaks of, e.g. {@code zhipu/3f2a…/rpd}, {@code zhipu}, {@code team-a/day}; alerts of one
 *                rule and subject are sent at most once per period
 * @param channel the channel it concerns, or empty (a tenant's budget, the request log)
 * @param message one line for people, naming keys by fingerprint only
 */
public record Alert(Instant at, AlertRule rule, String subject, String channel, String message) implements StateChange {

    /** Where an alert leaves its subject. */
    public enum Status { QUIET, FIRING }

    @Override
    public Enum<?> fromState() {
        return Status.QUIET;
    }

    @Override
    public Enum<?> toState() {
        return Status.FIRING;
    }

    @Override
    public Map<String, String> details() {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("type", "alert");
        details.put("rule", rule.configName());
        details.put("subject", subject);
        return details;
    }

    /** The mail subject and chat title: {@code KeyPool alert breakerOpened: zhipu}. */
    public String title() {
        return "KeyPool alert " + rule.configName() + ": " + subject;
    }
}
