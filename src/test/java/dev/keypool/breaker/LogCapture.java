package dev.keypool.breaker;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Collects the breaker's log lines as "LEVEL message" from the real log4j2 pipeline, so tests pin the wording
 * operators see. For the duration of a test the breaker's logger gets its own INFO, non-additive config (quiet
 * console, independent of whatever log4j2 file is on the classpath); afterwards the previous config is back.
 * Register with {@code @RegisterExtension}.
 */
final class LogCapture implements BeforeEachCallback, AfterEachCallback {

    private static final String LOGGER = ChannelBreaker.class.getName();

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private AbstractAppender appender;
    private LoggerConfig replaced;

    @Override
    public void beforeEach(ExtensionContext context) {
        appender = new AbstractAppender("breaker-capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        LoggerContext logging = (LoggerContext) LogManager.getContext(false);
        Configuration config = logging.getConfiguration();
        replaced = config.getLoggers().get(LOGGER);
        if (replaced != null) {
            config.removeLogger(LOGGER);
        }
        LoggerConfig capture = LoggerConfig.newBuilder()
                .withLoggerName(LOGGER)
                .withLevel(Level.INFO)
                .withAdditivity(false)
                .withConfig(config)
                .build();
        capture.addAppender(appender, null, null);
        config.addLogger(LOGGER, capture);
        logging.updateLoggers();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        LoggerContext logging = (LoggerContext) LogManager.getContext(false);
        Configuration config = logging.getConfiguration();
        config.removeLogger(LOGGER);
        if (replaced != null) {
            config.addLogger(LOGGER, replaced);
        }
        logging.updateLoggers();
        appender.stop();
    }

    /** Lines logged so far, oldest first. */
    List<String> lines() {
        return List.copyOf(lines);
    }

    void clear() {
        lines.clear();
    }
}
