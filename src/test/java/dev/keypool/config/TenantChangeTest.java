package dev.keypool.config;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.quota.Priority;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A tenant change of the admin API is checked by keypool.yaml's rules, each problem naming its field; laid over the
 * file's tenant it wins field by field, 0 lifts a limit, and a null of a later change gives the field back.
 */
class TenantChangeTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TenantConfig FILE = new TenantConfig("team-a", "token-a", 100, null, 5000L, 1000,
            Priority.NORMAL, List.of(), List.of(), 5.0, null, true);

    private static TenantChange read(String json) throws Exception {
        return TenantChange.read(MAPPER.readTree(json), Set.of("alpha", "beta"), Set.of());
    }

    @Test
    void should_lay_each_field_set_over_the_files_and_lift_a_limit_of_zero() throws Exception {
        TenantConfig over = read("{\"rpm\":10,\"tpm\":0,\"priority\":\"high\",\"channels\":[\"beta\"],"
                + "\"budget\":{\"daily\":0,\"monthly\":50},\"expiresAt\":\"2027-01-31T00:00:00Z\"}").over(FILE);

        assertThat(over.rpm()).isEqualTo(10);
        assertThat(over.tpm()).isNull();
        assertThat(over.rpd()).isEqualTo(1000);
        assertThat(over.priority()).isEqualTo(Priority.HIGH);
        assertThat(over.channels()).containsExactly("beta");
        assertThat(over.budgetDaily()).isNull();
        assertThat(over.budgetMonthly()).isEqualTo(50.0);
        assertThat(over.token()).isEqualTo("token-a");
    }

    @Test
    void should_give_a_field_back_to_the_file_on_null_and_keep_the_others() throws Exception {
        TenantChange stored = read("{\"rpm\":10,\"rpd\":3,\"expiresAt\":\"2027-01-31T00:00:00Z\"}");

        TenantChange merged = stored.then(read("{\"rpm\":null,\"expiresAt\":null}"));

        assertThat(merged.fields()).containsExactly("rpd");
        assertThat(merged.over(FILE).rpm()).isEqualTo(100);
        assertThat(merged.over(FILE).rpd()).isEqualTo(3);
        assertThat(merged.expiresAt()).isNull();
        assertThat(stored.expiresAt()).isEqualTo(Instant.parse("2027-01-31T00:00:00Z"));
    }

    @Test
    void should_read_back_what_it_writes() throws Exception {
        TenantChange change = read("{\"rpm\":10,\"models\":[\"gpt-*\"],\"borrow\":false,\"priority\":\"low\","
                + "\"budget\":{\"monthly\":2.5},\"maxInFlight\":3,\"expiresAt\":\"2027-01-31T00:00:00Z\"}");

        assertThat(TenantChange.stored(change.toJson())).isEqualTo(change);
    }

    @Test
    void should_report_every_problem_with_its_field() {
        assertThatThrownBy(() -> read("{\"rpm\":-1,\"burst\":0,\"channels\":[\"gamma\"],\"priority\":\"urgent\","
                + "\"budget\":{\"daily\":-2,\"weekly\":1},\"borrow\":\"yes\",\"expiresAt\":\"tomorrow\",\"token\":\"t\","
                + "\"colour\":\"red\"}"))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactlyInAnyOrder(
                        "rpm: must be >= 0",
                        "burst: must be >= 1",
                        "channels[0]: unknown channel 'gamma'",
                        "priority: unknown priority 'urgent' (use high, normal, low)",
                        "budget.weekly: unknown field",
                        "budget.daily: must be >= 0 (USD; 0 lifts the budget)",
                        "borrow: must be true or false",
                        "expiresAt: must be a UTC time such as 2027-01-31T00:00:00Z, or null for never",
                        "token: is made by the gateway and answered once; POST /admin/tenants/{name}/rotate for a new one",
                        "colour: unknown field; fields: borrow, budget, burst, channels, expiresAt, maxInFlight, models, "
                                + "priority, rpd, rpm, tpm"));
    }

    @Test
    void should_take_placeholders_as_text_not_from_the_environment() throws Exception {
        TenantChange change = read("{\"models\":[\"${HOME}\"]}");

        assertThat(change.over(FILE).models()).containsExactly("${HOME}");
    }
}
