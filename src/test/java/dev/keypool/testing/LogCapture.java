package dev.keypool.testing;

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

/** Collects every log line (message and stack trace) of the process while open, for assertions. */
public final class LogCapture extends AbstractAppender implements AutoCloseable {

    /** One captured line: level, logger and the formatted message with any exception text. */
    public record Line(Level level, String logger, String text) {
    }

    private final List<Line> lines = new CopyOnWriteArrayList<>();

    private LogCapture() {
        super("capture-" + System.nanoTime(), null, null, true, Property.EMPTY_ARRAY);
    }

    public static LogCapture attach() {
        LogCapture capture = new LogCapture();
        capture.attachToRoot();
        return capture;
    }

    private void attachToRoot() {
        start();
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        LoggerConfig root = config.getRootLogger();
        root.addAppender(this, Level.ALL, null);
        context.updateLoggers();
    }

    @Override
    public void append(LogEvent event) {
        StringBuilder text = new StringBuilder(event.getMessage().getFormattedMessage());
        for (Throwable t = event.getThrown(); t != null; t = t.getCause()) {
            text.append(" | ").append(t);
        }
        lines.add(new Line(event.getLevel(), event.getLoggerName(), text.toString()));
    }

    public List<Line> lines() {
        return lines;
    }

    public List<String> messages(Level level) {
        return lines.stream().filter(l -> l.level() == level).map(Line::text).toList();
    }

    public String all() {
        StringBuilder sb = new StringBuilder();
        lines.forEach(l -> sb.append(l.level()).append(' ').append(l.text()).append('\n'));
        return sb.toString();
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().getRootLogger().removeAppender(getName());
        context.updateLoggers();
        stop();
    }
}
