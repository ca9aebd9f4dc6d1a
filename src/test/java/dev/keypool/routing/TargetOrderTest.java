package dev.keypool.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

class TargetOrderTest {

    private static final Target A = new Target("deepseek", "deepseek-chat", 9, 1);
    private static final Target B = new Target("dashscope", "qwen-plus", 1, 1);
    private static final Target LOCAL = new Target("local", "qwen2.5-1.5b", 1, 2);

    private final TargetOrder order = new TargetOrder(new Random(42)::nextDouble);

    private static ModelGroup group(Balance balance, Target... targets) {
        return new ModelGroup("chat-default", balance, Sticky.NONE, null, List.of(targets));
    }

    private static TargetOrder.Signals allUsable() {
        return t -> true;
    }

    private Map<Target, Integer> firstChoices(ModelGroup group, TargetOrder.Signals signals, int requests) {
        Map<Target, Integer> counts = new HashMap<>();
        for (int i = 0; i < requests; i++) {
            counts.merge(order.order(group, signals, null).get(0), 1, Integer::sum);
        }
        return counts;
    }

    @Test
    void should_send_a_tenth_to_the_second_target_with_weights_9_and_1() {
        Map<Target, Integer> counts = firstChoices(group(Balance.WEIGHTED, A, B), allUsable(), 2000);
        assertThat(counts.get(B)).isBetween(160, 240);
    }

    @Test
    void should_send_a_quarter_to_the_second_target_with_weights_3_and_1() {
        Map<Target, Integer> counts = firstChoices(group(Balance.WEIGHTED, A.withWeight(3), B), allUsable(), 2000);
        assertThat(counts.get(B)).isBetween(460, 540);
    }

    @Test
    void should_order_the_rest_of_the_tier_then_the_next_tier() {
        List<Target> walk = order.order(group(Balance.WEIGHTED, LOCAL, A, B), allUsable(), null);
        assertThat(walk).hasSize(3).endsWith(LOCAL);
        assertThat(walk.subList(0, 2)).containsExactlyInAnyOrder(A, B);
    }

    @Test
    void should_choose_tier_2_only_while_every_tier_1_target_is_unusable() {
        ModelGroup group = group(Balance.WEIGHTED, A, B, LOCAL);
        // tier 1 unusable: its targets are passed by, tier 2 is the first usable one
        assertThat(order.order(group, t -> t.tier() == 2, null)).endsWith(LOCAL).hasSize(3);
        assertThat(firstChoices(group, t -> t != A, 200)).containsOnlyKeys(B);
        assertThat(firstChoices(group, allUsable(), 200)).doesNotContainKey(LOCAL);
    }

    @Test
    void should_never_choose_a_weight_of_0_first_but_still_walk_to_it() {
        Target off = B.withWeight(0);
        ModelGroup group = group(Balance.WEIGHTED, A, off);
        assertThat(firstChoices(group, allUsable(), 200)).containsOnlyKeys(A);
        assertThat(order.order(group, allUsable(), null)).containsExactly(A, off);
    }

    @Test
    void should_keep_a_sticky_tenant_on_its_target_while_usable_and_return_to_it() {
        ModelGroup group = new ModelGroup("g", Balance.WEIGHTED, Sticky.TENANT, null, List.of(A.withWeight(1), B));
        Set<Target> seen = new java.util.HashSet<>();
        for (String tenant : List.of("acme", "globex", "initech", "umbrella", "hooli", "soylent")) {
            Target first = order.order(group, allUsable(), tenant).get(0);
            seen.add(first);
            for (int i = 0; i < 50; i++) {
                assertThat(order.order(group, allUsable(), tenant).get(0)).isEqualTo(first);
            }
            Target other = first.equals(B) ? A.withWeight(1) : B;
            assertThat(order.order(group, t -> !t.equals(first), tenant).get(0)).isEqualTo(other);
            assertThat(order.order(group, allUsable(), tenant).get(0)).isEqualTo(first);
        }
        assertThat(seen).as("tenants spread over both targets").hasSize(2);
    }

    @Test
    void should_give_a_target_at_90_percent_of_its_window_less() {
        ModelGroup group = group(Balance.REMAINING_QUOTA, A.withWeight(1), B);
        TargetOrder.Signals signals = new TargetOrder.Signals() {
            @Override
            public boolean usable(Target target) {
                return true;
            }

            @Override
            public double remainingQuota(Target target) {
                return target.channel().equals("deepseek") ? 0.10 : 1.0;
            }
        };
        Map<Target, Integer> counts = firstChoices(group, signals, 2000);
        // 0.1 : 1 -> about 9 % to the target that has a tenth of its quota left
        assertThat(counts.get(A.withWeight(1))).isBetween(120, 250);
    }

    @Test
    void should_give_a_slow_target_less_but_never_none() {
        ModelGroup group = group(Balance.LATENCY, A.withWeight(1), B);
        TargetOrder.Signals signals = new TargetOrder.Signals() {
            @Override
            public boolean usable(Target target) {
                return true;
            }

            @Override
            public double latencyMillis(Target target) {
                return target.channel().equals("deepseek") ? 400 : 100;
            }
        };
        Map<Target, Integer> counts = firstChoices(group, signals, 2000);
        // 1/400 : 1/100 -> a fifth to the slow one
        assertThat(counts.get(A.withWeight(1))).isBetween(340, 460);
    }

    @Test
    void should_take_the_first_usable_target_in_file_order_with_priority() {
        ModelGroup group = group(Balance.PRIORITY, B, A, LOCAL);
        assertThat(order.order(group, allUsable(), null)).containsExactly(B, A, LOCAL);
        assertThat(order.order(group, t -> t != B, null)).containsExactly(A, B, LOCAL);
    }
}
