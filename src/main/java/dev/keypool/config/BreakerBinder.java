package dev.keypool.config;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

import dev.keypool.breaker.BreakerSettings;
import dev.keypool.breaker.BreakerTrigger;

/** The optional {@code breaker} block of one channel; every field left out takes {@link BreakerSettings#defaults()}. */
final class BreakerBinder {

    private static final Set<String> FIELDS = Set.of("triggers", "errorRateThreshold", "errorRateWindow",
            "minimumCalls", "latencyThresholdMs", "latencyWindow", "consecutiveFailThreshold", "recoveryTimeout",
            "halfOpenRequests", "halfOpenSuccess", "reopenDelay");

    BreakerSettings bind(ConfigNode node) {
        BreakerSettings defaults = BreakerSettings.defaults();
        if (node.isAbsent() || !node.checkMapping(FIELDS)) {
            return defaults;
        }
        // empty only when halfOpenRequests is set but invalid: then halfOpenSuccess has nothing to be checked against
        ConfigNode requestsNode = node.field("halfOpenRequests");
        Optional<Integer> halfOpenRequests = requestsNode.isAbsent()
                ? Optional.of(defaults.halfOpenRequests()) : requestsNode.integer(1);
        return new BreakerSettings(
                triggers(node.field("triggers")).orElse(defaults.triggers()),
                errorRateThreshold(node.field("errorRateThreshold")).orElse(defaults.errorRateThreshold()),
                node.field("errorRateWindow").positiveDuration().orElse(defaults.errorRateWindow()),
                node.field("minimumCalls").integer(1).orElse(defaults.minimumCalls()),
                node.field("latencyThresholdMs").longInteger(1).orElse(defaults.latencyThresholdMs()),
                node.field("latencyWindow").positiveDuration().orElse(defaults.latencyWindow()),
                node.field("consecutiveFailThreshold").integer(1).orElse(defaults.consecutiveFailThreshold()),
                node.field("recoveryTimeout").positiveDuration().orElse(defaults.recoveryTimeout()),
                halfOpenRequests.orElse(defaults.halfOpenRequests()),
                halfOpenSuccess(node.field("halfOpenSuccess"), halfOpenRequests, defaults),
                node.field("reopenDelay").positiveDuration().orElse(defaults.reopenDelay()));
    }

    /** An empty list is allowed: a breaker that only an operator can open. */
    private static Optional<Set<BreakerTrigger>> triggers(ConfigNode node) {
        if (node.isAbsent()) {
            return Optional.empty();
        }
        Set<BreakerTrigger> triggers = EnumSet.noneOf(BreakerTrigger.class);
        for (ConfigNode item : node.list()) {
            item.requiredText().ifPresent(name -> BreakerTrigger.ofConfigName(name).ifPresentOrElse(triggers::add,
                    () -> item.problem("unknown trigger " + Problems.quote(name)
                            + " (use " + String.join(", ", BreakerTrigger.configNames()) + ")")));
        }
        return Optional.of(triggers);
    }

    private static Optional<Double> errorRateThreshold(ConfigNode node) {
        Optional<Double> percent = node.decimal();
        if (percent.isPresent() && (percent.get() <= 0 || percent.get() > 100)) {
            node.problem("must be > 0 and <= 100");
            return Optional.empty();
        }
        return percent;
    }

    /**
     * At most {@code halfOpenRequests}: more successes than probes could never close the breaker. The default
     * shrinks with a smaller {@code halfOpenRequests: 1} instead of turning that setting into an error.
     */
    private static int halfOpenSuccess(ConfigNode node, Optional<Integer> halfOpenRequests, BreakerSettings defaults) {
        int requests = halfOpenRequests.orElse(defaults.halfOpenRequests());
        if (node.isAbsent()) {
            return Math.min(defaults.halfOpenSuccess(), requests);
        }
        Optional<Integer> successes = node.integer(1);
        if (successes.isPresent() && halfOpenRequests.isPresent() && successes.get() > halfOpenRequests.get()) {
            node.problem("must be between 1 and halfOpenRequests (" + halfOpenRequests.get() + ")");
        }
        // a value the settings accept even when it was reported: the load fails on the report, not on this value
        return Math.min(successes.orElse(defaults.halfOpenSuccess()), requests);
    }
}
