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
            "name: team-a\\ntoken: t1\\nchanels: [zhipu] | tenants[0].chanels: unknown field"})
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
}
