package dev.keypool.pool;

import dev.keypool.events.StateListener;
import dev.keypool.testing.LogCapture;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.keypool.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.keypool.pool.PoolTesting.acquire;
import static org.assertj.core.api.Assertions.assertThat;

/** The log lines operators grep for, word for word. */
class KeyPoolLogTest {

    private static final String SECRET = "sk-live-very-secret-0001";
    private static final Duration NO_TIME = Duration.ZERO;

    @RegisterExtension
    final LogCapture log = LogCapture.of(KeyPool.class);

    private final MutableClock clock = new MutableClock();
    private final ApiKey key = new ApiKey(SECRET, "primary", 1);
    private final String fp = key.fingerprint();
    private final KeyPool pool = new KeyPool(PoolSettings.builder("chat")
            .cooling(Cooling.fixed(Duration.ofSeconds(30))).disableAfter(2).clock(clock).build(),
            List.of(key));

    @Test
    void should_log_cooling_on_429() {
        rateLimited(Optional.of(Duration.ofSeconds(20)));

        assertThat(log.lines()).containsExactly("INFO Key " + fp + "(chat) cooling 20s after 429");
    }

    @Test
    void should_log_default_cooldown_on_429_without_retry_after() {
        rateLimited(Optional.empty());

        assertThat(log.lines()).containsExactly("INFO Key " + fp + "(chat) cooling 30s after 429");
    }

    @Test
    void should_log_again_when_429_extends_cooling() {
        twoCallsInFlight();
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(20)));
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(45)));

        assertThat(log.lines()).containsExactly(
                "INFO Key " + fp + "(chat) cooling 20s after 429",
                "INFO Key " + fp + "(chat) cooling 45s after 429");
    }

    @Test
    void should_not_log_when_429_leaves_deadline_as_is() {
        twoCallsInFlight();
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(20)));
        pool.outcomes().recordRateLimited(key, NO_TIME, Optional.of(Duration.ofSeconds(5)));

        assertThat(log.lines()).hasSize(1);
    }

    @Test
    void should_log_cool_down_once() {
        rateLimited(Optional.of(Duration.ofSeconds(20)));
        clock.advance(Duration.ofSeconds(20));
        pool.stateOf(key);
        pool.stateOf(key);
        pool.selection().hasUsableKey(KeyScope.SHARED, Set.of());

        assertThat(log.lines()).containsExactly(
                "INFO Key " + fp + "(chat) cooling 20s after 429",
                "INFO Key " + fp + "(chat) cooled down, ACTIVE");
    }

    @Test
    void should_log_disable_after_consecutive_failures() {
        failed("503");
        failed("timeout");

        assertThat(log.lines()).containsExactly(
                "WARN Key " + fp + "(chat) disabled after 2 consecutive failures (last: timeout)");
    }

    @Test
    void should_log_disable_after_rejection() {
        acquire(pool, key);
        pool.outcomes().recordRejected(key, NO_TIME, 401);

        assertThat(log.lines()).containsExactly("WARN Key " + fp + "(chat) disabled after 401 from upstream");
    }

    @Test
    void should_log_disable_by_operator() {
        pool.controls().disable(fp);

        assertThat(log.lines()).containsExactly("WARN Key " + fp + "(chat) disabled by operator");
    }

    @Test
    void should_log_enable_by_operator() {
        pool.controls().disable(fp);
        pool.controls().enable(fp);

        assertThat(log.lines()).last().isEqualTo("INFO Key " + fp + "(chat) enabled by operator, ACTIVE");
    }

    @Test
    void should_replace_secret_in_failure_cause_with_fingerprint() {
        failed("503");
        failed("GET https://api.example/v1?key=" + SECRET + " refused");

        assertThat(log.lines()).singleElement().asString()
                .doesNotContain(SECRET)
                .contains("(last: GET https://api.example/v1?key=" + fp + " refused)");
    }

    @Test
    void should_never_log_the_secret() {
        rateLimited(Optional.of(Duration.ofSeconds(20)));
        clock.advance(Duration.ofSeconds(20));
        pool.stateOf(key);
        failed("503");
        failed("503");
        pool.controls().enable(fp);
        acquire(pool, key);
        pool.outcomes().recordRejected(key, NO_TIME, 403);
        pool.controls().enable(fp);
        pool.controls().disable(fp);

        // cooling, cooled down, disabled, enabled, disabled, enabled, disabled
        assertThat(log.lines()).hasSize(7).noneMatch(line -> line.contains(SECRET));
    }

    /** Both calls come back 429: the second one finds the key already cooling. */
    private void twoCallsInFlight() {
        acquire(pool, key);
        acquire(pool, key);
    }

    private void rateLimited(Optional<Duration> retryAfter) {
        acquire(pool, key);
        pool.outcomes().recordRateLimited(key, NO_TIME, retryAfter);
    }

    private void failed(String cause) {
        acquire(pool, key);
        pool.outcomes().recordFailure(key, NO_TIME, cause);
    }
}
