package dev.keypool.gateway;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BodyBudgetTest {

    @Test
    void should_refuse_bytes_past_the_budget_and_take_them_once_given_back() {
        BodyBudget budget = new BodyBudget(100);

        assertThat(budget.tryTake(60)).isTrue();
        assertThat(budget.tryTake(50)).isFalse();
        assertThat(budget.held()).isEqualTo(60);
        budget.giveBack(60);
        assertThat(budget.tryTake(50)).isTrue();
    }

    @Test
    void should_take_a_body_larger_than_the_budget_when_nothing_else_is_held() {
        BodyBudget budget = new BodyBudget(100);

        assertThat(budget.tryTake(150)).isTrue();
        assertThat(budget.tryTake(1)).isFalse();
    }

    @Test
    void should_size_a_budget_from_a_quarter_of_the_heap() {
        assertThat(BodyBudget.sizedFromHeap(336L * 1024 * 1024)).isEqualTo(84L * 1024 * 1024);
    }
}
