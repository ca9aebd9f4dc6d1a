package dev.keypool.testing;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.awaitility.pollinterval.PollInterval;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Every {@code await()} of the suite checks its condition at once, then after 1, 2, 4 … ms up to Awaitility's usual
 * 100 ms: most conditions of the suite hold within milliseconds, and Awaitility's default (first look after 100 ms,
 * then every 100 ms) added up to a tenth of a second to each of its waits, many of them in loops. A wait that lasts
 * still looks every 100 ms, and a test that sets its own interval keeps it. Registered for every test class by
 * JUnit's extension auto-detection (junit-platform.properties, META-INF/services).
 */
public final class PromptAwaitility implements BeforeAllCallback {

    private static final Duration LONGEST = Duration.ofMillis(100);

    /** 1, 2, 4, … 64, then 100 ms between two looks. */
    static final PollInterval DOUBLING = (pollCount, previous) -> {
        Duration next = pollCount <= 1 ? Duration.ofMillis(1) : previous.multipliedBy(2);
        return next.compareTo(LONGEST) > 0 ? LONGEST : next;
    };

    @Override
    public void beforeAll(ExtensionContext context) {
        Awaitility.setDefaultPollDelay(Duration.ZERO);
        Awaitility.setDefaultPollInterval(DOUBLING);
    }
}
