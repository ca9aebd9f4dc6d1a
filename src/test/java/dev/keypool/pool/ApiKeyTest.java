package dev.keypool.pool;

import dev.keypool.auth.ProviderAuth;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

class ApiKeyTest {

    private static final String SECRET = "sk-live-1234567890abcdef";

    @Test
    void should_show_fingerprint_and_label_in_toString() {
        ApiKey key = new ApiKey(SECRET, "team-a", 1);

        assertThat(key).hasToString("ApiKey[" + Fingerprint.of(SECRET) + "(team-a)]");
    }

    @Test
    void should_show_only_fingerprint_in_toString_without_label() {
        ApiKey key = new ApiKey(SECRET, null, 1);

        assertThat(key).hasToString("ApiKey[" + Fingerprint.of(SECRET) + "]");
    }

    @Test
    void should_never_show_secret_in_toString_label_or_fingerprint() {
        ApiKey key = new ApiKey(SECRET, "team-a", 1);

        assertThat(key.toString()).doesNotContain(SECRET);
        assertThat(key.label()).doesNotContain(SECRET);
        assertThat(key.fingerprint()).doesNotContain(SECRET);
        assertThat(key.stats().toString()).doesNotContain(SECRET);
    }

    @Test
    void should_give_secret_only_as_the_header_value_of_its_channels_auth() {
        assertThat(new ApiKey(SECRET, null, 1).credential(ProviderAuth.BEARER)).isEqualTo("Bearer " + SECRET);
        assertThat(new ApiKey(SECRET, null, 1).credential(ProviderAuth.X_API_KEY)).isEqualTo(SECRET);
    }

    @Test
    void should_reject_label_containing_secret_without_naming_it() {
        Throwable thrown = catchThrowable(() -> new ApiKey(SECRET, "oops " + SECRET, 1));

        assertThat(thrown).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Fingerprint.of(SECRET))
                .message().doesNotContain(SECRET);
    }

    @Test
    void should_reject_weight_below_one_without_naming_secret() {
        Throwable thrown = catchThrowable(() -> new ApiKey(SECRET, null, 0));

        assertThat(thrown).isInstanceOf(IllegalArgumentException.class).message().doesNotContain(SECRET);
    }

    @Test
    void should_reject_secret_with_whitespace_without_naming_it() {
        Throwable thrown = catchThrowable(() -> new ApiKey(SECRET + "\n", null, 1));

        assertThat(thrown).isInstanceOf(IllegalArgumentException.class).message().doesNotContain(SECRET);
    }

    @Test
    void should_reject_blank_secret() {
        assertThat(catchThrowable(() -> new ApiKey(" ", null, 1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_start_active_with_zero_counters() {
        ApiKey key = new ApiKey(SECRET, null, 3);

        assertThat(key.storedState()).isEqualTo(KeyState.ACTIVE);
        assertThat(key.storedCoolingUntil()).isEmpty();
        assertThat(key.stats()).isEqualTo(new KeyStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        assertThat(key.weight()).isEqualTo(3);
    }

    @Test
    void should_report_zero_average_latency_without_calls() {
        assertThat(new KeyStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0).averageLatencyMs()).isZero();
    }
}
