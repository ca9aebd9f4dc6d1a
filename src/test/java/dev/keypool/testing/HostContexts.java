package dev.keypool.testing;

import dev.keypool.camel.PromptShutdown;
import org.apache.camel.CamelContext;
import org.apache.camel.StartupSummaryLevel;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * The plain CamelContext of a host application that embeds KeyPool (the keypool component, its Kamelets), for tests:
 * without MBeans, as {@link GatewayInstance} and {@code GatewayTestSupport} boot the gateway (with camel-management on
 * the class path a plain context registers one for every route, processor and service, about half of a boot's CPU,
 * GatewayBootBench), without Camel's listing of every route started and stopped, which no test reads, and with the
 * short queue polls of {@code GatewayTestSupport} (a stop waits for each idle queue consumer's poll in turn), and a
 * stop that does not pause a second for what is in flight ({@link PromptShutdown}, as the gateway's own).
 */
public final class HostContexts {

    private HostContexts() {
    }

    public static CamelContext plain() {
        DefaultCamelContext context = new DefaultCamelContext();
        context.disableJMX();
        context.setStartupSummaryLevel(StartupSummaryLevel.Off);
        context.getPropertiesComponent().addInitialProperty("keypool.queue-poll-ms", "10");
        context.setShutdownStrategy(new PromptShutdown());
        return context;
    }
}
