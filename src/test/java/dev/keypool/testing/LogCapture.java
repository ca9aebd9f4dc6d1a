package dev.keypool.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Collects log events from the real log4j2 pipeline, so tests pin the wording operators see. Attach it to every
 * logger ({@link #attach()}) or to one class's logger ({@link #of(Class)}); as a JUnit extension
 * ({@code @RegisterExtension}) it detaches itself after each test, otherwise call {@link #close()}.
 */
public final class LogCapture extends AbstractAppender implements AfterEachCallback, AutoCloseable {

    /** One event: level, logger and the formatted message with any exception text. */
    public record Line(Level level, String logger, String text) {
    }

    private final String loggerName;
    private final List<Line> events = new CopyOnWriteArrayList<>();

    private LogCapture(String loggerName) {
        super("capture-" + System.nanoTime(), null, null, true, Property.EMPTY_ARRAY);
        this.loggerName = loggerName;
    }

    /** Everything every logger writes. */
    public static LogCapture attach() {
        return new LogCapture(null).start0();
    }

    /** What the logger of this class writes. */
    public static LogCapture of(Class<?> loggingClass) {
        return new LogCapture(loggingClass.getName()).start0();
    }

    private LogCapture start0() {
        start();
        LoggerContext context = LoggerContext.getContext(false);
        context.getConfiguration().getRootLogger().addAppender(this, Level.ALL, null);
        context.updateLoggers();
        return this;
    }

    @Override
    public void append(LogEvent event) {
        if (loggerName != null && !loggerName.equals(event.getLoggerName())) {
            return;
        }
        StringBuilder text = new StringBuilder(event.getMessage().getFormattedMessage());
        for (Throwable t = event.getThrown(); t != null; t = t.getCause()) {
            text.append(" | ").append(t);
        }
        events.add(new Line(event.getLevel(), event.getLoggerName(), text.toString()));
    }

    public List<Line> events() {
        return List.copyOf(events);
    }

    /** "LEVEL message" for each event at INFO or above, in order. */
    public List<String> lines() {
        return events.stream().filter(l -> l.level().isMoreSpecificThan(Level.INFO))
                .map(l -> l.level() + " " + l.text()).toList();
    }

    public List<String> messages(Level level) {
        return events.stream().filter(l -> l.level() == level).map(Line::text).toList();
    }

    /** Every event as text, for "contains / does not contain" checks. */
    public String all() {
        StringBuilder sb = new StringBuilder();
        events.forEach(l -> sb.append(l.level()).append(' ').append(l.text()).append('\n'));
        return sb.toString();
    }

    public void clear() {
        events.clear();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        LoggerContext context = LoggerContext.getContext(false);
        context.getConfiguration().getRootLogger().removeAppender(getName());
        context.updateLoggers();
        stop();
    }
}
