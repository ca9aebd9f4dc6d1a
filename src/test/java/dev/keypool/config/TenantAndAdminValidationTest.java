package dev.keypool.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

class TenantAndAdminValidationTest {

    /** The valid one-channel file plus these top-level lines. */
    private static String with(String topLevel) {
        return channelWith("") + topLevel;
    }

    private static String tenant(String fields) {
        return with("tenants:\n  - " + fields.stripTrailing().indent(4).stripLeading());
    }

    @Test
    void should_allow_a_file_without_tenants() {
        assertThat(parse(with("tenants: []")).tenants()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "token: t1                            | tenants[0].name: is required",
            "name: Team A\\ntoken: t1              | tenants[0].name: invalid tenant name 'Team A' (use a-z, 0-9 and '-')",
            "name: team-a                         | tenants[0].token: is required",
            "name: team-a\\ntoken: ''              | tenants[0].token: must not be blank",
            "name: team-a\\ntoken: t1\\nrpm: 0      | tenants[0].rpm: must be >= 1",
            "name: team-a\\ntoken: t1\\nchannels: [zhipu, dashscope] | tenants[0].channels[1]: unknown channel 'dashscope'",
            "name: team-a\\ntoken: t1\\nchannels: zhipu | tenants[0].channels: must be a list",
            "name: team-a\\ntoken: t1\\nchanels: [zhipu] | tenants[0].chanels: unknown field",
            "name: team-a\\ntoken: t1\\nburst: 5 | tenants[0].burst: needs rpm: the burst is the size of the rpm bucket",
            "name: team-a\\ntoken: t1\\nrpm: 6\\nburst: 0 | tenants[0].burst: must be >= 1",
            "name: team-a\\ntoken: t1\\ntpm: 0 | tenants[0].tpm: must be >= 1",
            "name: team-a\\ntoken: t1\\nrpd: x | tenants[0].rpd: must be an integer",
            "name: team-a\\ntoken: t1\\npriority: urgent | tenants[0].priority: unknown priority 'urgent' (use high, normal, low)",
            "name: team-a\\ntoken: t1\\nmodels: glm-4 | tenants[0].models: must be a list",
            "name: team-a\\ntoken: t1\\nbudget: 20 | tenants[0].budget: must be a mapping",
            "name: team-a\\ntoken: t1\\nbudget: {daily: -1} | tenants[0].budget.daily: must be > 0 (USD)",
            "name: team-a\\ntoken: t1\\nbudget: {weekly: 5} | tenants[0].budget.weekly: unknown field",
            "name: team-a\\ntoken: t1\\nborrow: maybe | tenants[0].borrow: must be true or false",
            "name: team-a\\ntoken: t1\\nmaxInFlight: 0 | tenants[0].maxInFlight: must be >= 1"})
    void should_check_the_tenant_settings(String fields, String problem) {
        assertThat(problemsOf(tenant(fields.replace("\\n", "\n")))).containsExactly(problem);
    }

    @Test
    void should_report_duplicate_tenant_names_and_tokens() {
        String yaml = with("""
                tenants:
                  - {name: team-a, token: t1}
                  - {name: team-b, token: t2}
                  - {name: team-a, token: t1}
                """);

        assertThat(problemsOf(yaml)).containsExactly(
                "tenants[2].name: duplicate tenant name 'team-a'",
                "tenants[2].token: same token as tenants[0]");
    }

    @Test
    void should_require_tenants_to_be_a_list() {
        assertThat(problemsOf(with("tenants: {team-a: t1}"))).containsExactly("tenants: must be a list");
    }

    @Test
    void should_require_an_admin_token_when_admin_is_present() {
        assertThat(problemsOf(with("admin: {}"))).containsExactly("admin.token: is required");
        assertThat(problemsOf(with("admin: {token: ' '}"))).containsExactly("admin.token: must not be blank");
        assertThat(problemsOf(with("admin: secret"))).containsExactly("admin: must be a mapping");
        assertThat(problemsOf(with("admin: {token: a, user: b}"))).containsExactly("admin.user: unknown field");
    }

    @Test
    void should_read_every_tenant_setting() {
        TenantConfig tenant = parse(tenant("""
                name: team-a
                token: t1
                rpm: 600
                burst: 50
                tpm: 200000
                rpd: 50000
                priority: high
                channels: [zhipu]
                models: [glm-4-flash, "deepseek-*"]
                budget: {daily: 20, monthly: 400.5}
                borrow: false
                """)).tenants().get(0);

        assertThat(tenant).isEqualTo(new TenantConfig("team-a", "t1", 600, 50, 200_000L, 50_000,
                dev.keypool.quota.Priority.HIGH, java.util.List.of("zhipu"), java.util.List.of("glm-4-flash", "deepseek-*"),
                20.0, 400.5, false));
        assertThat(tenant.bucketSize()).isEqualTo(50);
    }

    @Test
    void should_read_a_tenants_limit_of_requests_in_flight() {
        assertThat(parse(tenant("name: team-a\ntoken: t1\nmaxInFlight: 3")).tenants().get(0).maxInFlight()).isEqualTo(3);
        assertThat(parse(tenant("name: team-a\ntoken: t1")).tenants().get(0).maxInFlight()).isNull();
    }

    @Test
    void should_size_the_bucket_from_rpm_when_no_burst_is_given() {
        assertThat(parse(tenant("name: team-a\ntoken: t1\nrpm: 600")).tenants().get(0).bucketSize()).isEqualTo(100);
        assertThat(parse(tenant("name: team-a\ntoken: t1\nrpm: 3")).tenants().get(0).bucketSize()).isEqualTo(1);
        TenantConfig open = parse(tenant("name: team-a\ntoken: t1")).tenants().get(0);
        assertThat(open.bucketSize()).isNull();
        assertThat(open.borrow()).isTrue();
        assertThat(open.priority()).isEqualTo(dev.keypool.quota.Priority.NORMAL);
    }

    @Test
    void should_check_that_a_key_names_a_configured_tenant() {
        String yaml = """
                channels:
                  - name: zhipu
                    baseUrl: https://example.com/v1
                    models: [glm-4]
                    keys:
                      - key: sk-one
                        tenant: team-a
                      - key: sk-two
                        tenant: team-z
                tenants:
                  - {name: team-a, token: t1}
                """;

        assertThat(problemsOf(yaml)).containsExactly("channels[0].keys[1].tenant: unknown tenant 'team-z'");
        assertThat(parse(yaml.replace("team-z", "team-a")).channels().get(0).keys().get(0).tenant()).isEqualTo("team-a");
    }
}
