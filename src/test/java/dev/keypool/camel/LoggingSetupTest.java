package dev.keypool.camel;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.impl.Log4jContextFactory;
import org.apache.logging.log4j.core.selector.BasicContextSelector;
import org.junit.jupiter.api.Test;

/** log4j's settings of log4j2.component.properties in force: what a start's logging costs depends on them. */
class LoggingSetupTest {

    @Test
    void should_keep_one_logger_context_for_the_process() {
        assertThat(((Log4jContextFactory) LogManager.getFactory()).getSelector()).isInstanceOf(BasicContextSelector.class);
        assertThat(LoggerContext.getContext(LoggingSetupTest.class.getClassLoader(), false, null))
                .isSameAs(LoggerContext.getContext(ClassLoader.getPlatformClassLoader(), false, null));
    }

    @Test
    void should_configure_logging_from_log4j2_properties() {
        LoggerContext context = LoggerContext.getContext(false);
        assertThat(context.getConfiguration().getConfigurationSource().getLocation()).endsWith("log4j2.properties");
        assertThat(context.getConfiguration().getLoggerConfig("org.flywaydb").getLevel()).isEqualTo(Level.WARN);
    }
}
