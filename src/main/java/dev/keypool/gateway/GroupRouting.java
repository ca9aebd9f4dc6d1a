package dev.keypool.gateway;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.keypool.breaker.BreakerState;
import dev.keypool.config.Api;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyScope;
import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.ModelPrice;
import dev.keypool.routing.CostGuard;
import dev.keypool.routing.ModelGroup;
import dev.keypool.routing.Target;
import dev.keypool.routing.TargetOrder;

/**
 * The walk of a request for a model group (design §16): the group's targets in the order {@link TargetOrder} draws
 * for this request, then the fallback lists of their channels, no channel and model twice. It is the same walk as a
 * channel's own chain, with the model to send named at each step.
 */
public final class GroupRouting {

    private final Channels channels;
    private final TargetOrder order;

    public GroupRouting(Channels channels, TargetOrder order) {
        this.channels = channels;
        this.order = order;
    }

    /**
     * @param scope  the keys the request may use: a target without one of them is unusable
     * @param sticky the tenant or user the group keeps on one target, or null
     * @param pinned the channel a {@code channel/group} pin names (design §2), or null: its steps come first, the rest
     *               of the walk after them; 404 when the walk has no step on it
     */
    public Channels.Plan plan(ModelGroup group, Api api, KeyScope scope, String sticky, String pinned) {
        TargetOrder.Signals signals = new Signals(scope);
        List<Channel> chain = new ArrayList<>();
        List<String> models = new ArrayList<>();
        Set<String> steps = new HashSet<>();
        List<Channel> targetChannels = new ArrayList<>();
        for (Target target : order.order(group, signals, sticky)) {
            Channel channel = channels.get(target.channel()).orElse(null);
            // a target of the other format gets the request translated (design §17)
            if (channel != null && Formats.reachable(api, channel.config())) {
                String model = channel.upstreamModel(target.model());
                if (steps.add(channel.name() + '/' + model)) {
                    chain.add(channel);
                    models.add(model);
                    targetChannels.add(channel);
                }
            }
        }
        Set<String> inChain = new HashSet<>();
        chain.forEach(c -> inChain.add(c.name()));
        for (Channel from : targetChannels) {
            for (String name : from.config().fallback()) {
                Channel fallback = channels.get(name).orElse(null);
                if (fallback != null && fallback.config().servesApi(api) && inChain.add(fallback.name())) {
                    chain.add(fallback);
                    // a fallback channel answers with its own first model, as in a channel's chain
                    models.add(fallback.upstreamModel(group.name()));
                }
            }
        }
        if (pinned != null) {
            pinFirst(pinned, chain, models);
        }
        if (chain.isEmpty()) {
            throw GatewayError.modelNotFound(pinned == null ? group.name() : pinned + '/' + group.name(), api);
        }
        return new Channels.Plan(group.name(), List.copyOf(chain), List.copyOf(models));
    }

    /**
     * The plan without the steps its group's cost guard forbids ({@link CostGuard}): priced against the plan's first
     * step, the one the request starts with once the tenant's channels are known. The steps taken out are named in
     * {@link Channels.Plan#tooExpensive()}.
     */
    public static Channels.Plan affordable(ModelGroup group, Channels.Plan plan) {
        if (group.maxPriceRatio() == null || plan.models() == null || plan.chain().size() < 2) {
            return plan;
        }
        List<Double> prices = new ArrayList<>(plan.chain().size());
        for (int i = 0; i < plan.chain().size(); i++) {
            ModelPrice price = plan.chain().get(i).config().pricing().get(plan.models().get(i));
            prices.add(price == null ? null : price.inputUsdPerMillion() + price.outputUsdPerMillion());
        }
        boolean[] allowed = CostGuard.affordable(group.maxPriceRatio(), prices);
        List<Channel> chain = new ArrayList<>();
        List<String> models = new ArrayList<>();
        List<String> skipped = new ArrayList<>(plan.tooExpensive());
        for (int i = 0; i < allowed.length; i++) {
            if (allowed[i]) {
                chain.add(plan.chain().get(i));
                models.add(plan.models().get(i));
            } else {
                skipped.add(plan.chain().get(i).name() + '/' + plan.models().get(i));
            }
        }
        return skipped.size() == plan.tooExpensive().size() ? plan
                : new Channels.Plan(plan.model(), List.copyOf(chain), List.copyOf(models), skipped);
    }

    /** The steps on the pinned channel first, each with its model, the others after them in their order; none: empty. */
    private static void pinFirst(String pinned, List<Channel> chain, List<String> models) {
        List<Channel> pinnedChain = new ArrayList<>();
        List<String> pinnedModels = new ArrayList<>();
        List<Channel> restChain = new ArrayList<>();
        List<String> restModels = new ArrayList<>();
        for (int i = 0; i < chain.size(); i++) {
            boolean first = chain.get(i).name().equals(pinned);
            (first ? pinnedChain : restChain).add(chain.get(i));
            (first ? pinnedModels : restModels).add(models.get(i));
        }
        chain.clear();
        models.clear();
        if (!pinnedChain.isEmpty()) {
            chain.addAll(pinnedChain);
            chain.addAll(restChain);
            models.addAll(pinnedModels);
            models.addAll(restModels);
        }
    }

    /** What the channels of the targets look like now. */
    private final class Signals implements TargetOrder.Signals {
        private final KeyScope scope;

        Signals(KeyScope scope) {
            this.scope = scope;
        }

        @Override
        public boolean usable(Target target) {
            Channel channel = channels.get(target.channel()).orElse(null);
            return channel != null && channel.breaker().state() != BreakerState.OPEN
                    && channel.pool().selection().hasUsableKey(scope, Set.of());
        }

        /** The mean over the channel's keys of the share left in each key's fullest window. */
        @Override
        public double remainingQuota(Target target) {
            KeyPool pool = channels.get(target.channel()).map(Channel::pool).orElse(null);
            if (pool == null || pool.keys().isEmpty()) {
                return 1;
            }
            double left = 0;
            for (ApiKey key : pool.keys()) {
                double fullest = 0;
                for (KeyQuota.Use use : pool.quotaOf(key).use()) {
                    fullest = Math.max(fullest, use.ratio());
                }
                left += Math.max(0, 1 - fullest);
            }
            return left / pool.keys().size();
        }

        /** The mean latency of the channel's keys that have answered. */
        @Override
        public double latencyMillis(Target target) {
            KeyPool pool = channels.get(target.channel()).map(Channel::pool).orElse(null);
            if (pool == null) {
                return 0;
            }
            double sum = 0;
            int measured = 0;
            for (ApiKey key : pool.keys()) {
                double ms = key.stats().averageLatencyMs();
                if (ms > 0) {
                    sum += ms;
                    measured++;
                }
            }
            return measured == 0 ? 0 : sum / measured;
        }
    }
}
