package dev.keypool.pool;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Records what one logger writes at INFO and above during a test, as "LEVEL message" lines. Registered with
 * {@code @RegisterExtension}; it attaches its own logger config so it works whatever log4j2 configuration is present.
 */
final class LogCapture implements BeforeEachCallback, AfterEachCallback {

    private final String loggerName;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private LoggerContext context;
    private AbstractAppender appender;

    LogCapture(Class<?> loggingClass) {
        this.loggerName = loggingClass.getName();
    }

    /** "LEVEL message" for each event so far, in order. */
    List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void beforeEach(ExtensionContext extensionContext) {
        context = LoggerContext.getContext(false);
        appender = new AbstractAppender("capture-" + loggerName, null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        LoggerConfig config = new LoggerConfig(loggerName, Level.INFO, false);
        config.addAppender(appender, Level.INFO, null);
        context.getConfiguration().addLogger(loggerName, config);
        context.updateLoggers();
    }

    @Override
    public void afterEach(ExtensionContext extensionContext) {
        context.getConfiguration().removeLogger(loggerName);
        context.updateLoggers();
        appender.stop();
    }
}
