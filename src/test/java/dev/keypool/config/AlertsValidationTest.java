package dev.keypool.config;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

/** alerts: in keypool.yaml: every rule on with its defaults unless the file says otherwise, validated like the rest. */
class AlertsValidationTest {

    private static String with(String topLevel) {
        return channelWith("") + topLevel;
    }

    @Test
    void should_default_to_every_rule_on_no_sink_and_ten_minutes() {
        AlertsConfig alerts = parse(with("")).alerts();

        assertThat(alerts).isEqualTo(AlertsConfig.DEFAULT);
        assertThat(alerts.sinks()).isEmpty();
        assertThat(alerts.period()).isEqualTo(Duration.ofMinutes(10));
        assertThat(AlertsConfig.RULES).allMatch(alerts::on);
        assertThat(alerts.quotaPercent()).isEqualTo(80);
        assertThat(alerts.budgetPercent()).isEqualTo(80);
    }

    @Test
    void should_read_sinks_period_rules_off_and_thresholds() {
        AlertsConfig alerts = parse(with("""
                alerts:
                  sinks: ["http://127.0.0.1:9/hook", "smtp://mail?to=ops@example.com", "kafka:keypool.alerts"]
                  period: 30m
                  rules:
                    quota: {percent: 90}
                    tenantBudget: {enabled: false}
                    keyDisabled: false
                    channelErrors: {errors: 50, minutes: 2}
                """)).alerts();

        assertThat(alerts.sinks()).containsExactly("http://127.0.0.1:9/hook", "smtp://mail?to=ops@example.com",
                "kafka:keypool.alerts");
        assertThat(alerts.period()).isEqualTo(Duration.ofMinutes(30));
        assertThat(alerts.off()).isEqualTo(Set.of("tenantBudget", "keyDisabled"));
        assertThat(alerts.quotaPercent()).isEqualTo(90);
        assertThat(alerts.channelErrors()).isEqualTo(50);
        assertThat(alerts.channelErrorWindow()).isEqualTo(Duration.ofMinutes(2));
        assertThat(alerts.on("breakerOpened")).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "alerts: {sinks: [webhook]}                      | alerts.sinks[0]: must be a Camel endpoint URI such as http://host/hook, smtp://host?to=ops@example.com or kafka:topic",
            "alerts: {sinks: ['']}                           | alerts.sinks[0]: must not be blank",
            "alerts: {sinks: http://x}                       | alerts.sinks: must be a list",
            "alerts: {period: 0s}                            | alerts.period: must be > 0",
            "alerts: {rules: {keyDisabeld: false}}           | alerts.rules.keyDisabeld: unknown rule (known: quota, tenantBudget, tenantBudgetSpent, keyDisabled, breakerOpened, channelUnusable, channelErrors, requestLogDropped, redisAlone)",
            "alerts: {rules: {quota: {percent: 120}}}        | alerts.rules.quota.percent: must be <= 100",
            "alerts: {rules: {quota: {errors: 3}}}           | alerts.rules.quota.errors: unknown field",
            "alerts: {rules: {channelErrors: {minutes: 0}}}  | alerts.rules.channelErrors.minutes: must be >= 1",
            "alerts: {rules: {breakerOpened: maybe}}         | alerts.rules.breakerOpened: must be true or false",
            "alerts: {sink: []}                              | alerts.sink: unknown field"})
    void should_report_a_bad_block_with_its_path(String block, String problem) {
        assertThat(problemsOf(with(block + "\n"))).containsExactly(problem);
    }

    @Test
    void should_never_quote_a_sink_in_a_problem_nor_print_it() {
        String secret = "smtp://ops:hunter2@mail.example.com";
        assertThat(problemsOf(with("alerts: {sinks: ['" + secret + "'], period: never}\n")))
                .isNotEmpty().noneMatch(p -> p.contains("hunter2"));
        assertThat(parse(with("alerts: {sinks: ['" + secret + "']}\n")).alerts().toString()).doesNotContain("hunter2");
        assertThat(problemsOf(with("alerts: {sinks: ['hunter2']}\n"))).isNotEmpty().noneMatch(p -> p.contains("hunter2"));
    }
}
