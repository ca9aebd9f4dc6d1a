package dev.keypool.camel;

import java.util.Optional;
import java.util.function.Function;

import org.apache.camel.CamelContext;
import org.apache.camel.StartupListener;
import org.apache.camel.support.LifecycleStrategySupport;
import org.apache.camel.support.service.ServiceSupport;
import org.apache.camel.util.function.ThrowingRunnable;

/**
 * What every area's configuration class asks of the context: its settings (application.properties, the one place their
 * defaults are written), services that start and stop with it, and a word when it has started.
 */
final class Wiring {

    private Wiring() {
    }

    /** The settings as a function, for the configuration file's placeholders. */
    static Function<String, String> settings(CamelContext context) {
        return name -> context.getPropertiesComponent().resolveProperty(name).orElse(null);
    }

    /** A setting whose default application.properties gives; missing only when that file was not loaded. */
    static String setting(CamelContext context, String name) {
        return context.getPropertiesComponent().resolveProperty(name).orElseThrow(() -> new IllegalStateException(
                "Setting " + name + " is missing: start KeyPool with its application.properties"));
    }

    static int intSetting(CamelContext context, String name) {
        return Integer.parseInt(setting(context, name));
    }

    static long longSetting(CamelContext context, String name) {
        return Long.parseLong(setting(context, name));
    }

    /** A setting without a default: empty when unset or blank. */
    static Optional<String> optionalSetting(CamelContext context, String name) {
        return context.getPropertiesComponent().resolveProperty(name).filter(v -> !v.isBlank());
    }

    static boolean flag(CamelContext context, String name) {
        return context.getPropertiesComponent().resolveProperty(name).map(Boolean::parseBoolean).orElse(false);
    }

    static void addService(CamelContext context, Object service) {
        try {
            context.addService(service, true, true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start " + service.getClass().getSimpleName(), e);
        }
    }

    /** Something to close when the context stops (the Redis connections). */
    static void closeOnStop(CamelContext context, ThrowingRunnable<Exception> close) {
        addService(context, new OnStop(close));
    }

    /**
     * Something to close once the context has stopped every route, component and service: what they use until their
     * own stop (the Vert.x of the HTTP server and the provider calls). A service of the context would be stopped among
     * the others, before some that still need it.
     */
    static void closeAfterStop(CamelContext context, ThrowingRunnable<Exception> close) {
        context.addLifecycleStrategy(new LifecycleStrategySupport() {
            @Override
            public void onContextStopped(CamelContext stopped) {
                try {
                    close.run();
                } catch (Exception e) {
                    throw new IllegalStateException("cannot close after the stop of " + stopped.getName(), e);
                }
            }
        });
    }

    static void addStartupListener(CamelContext context, StartupListener listener) {
        try {
            context.addStartupListener(listener);
        } catch (Exception e) {
            throw new IllegalStateException("cannot listen to the start of " + context.getName(), e);
        }
    }

    private static final class OnStop extends ServiceSupport {
        private final ThrowingRunnable<Exception> close;

        OnStop(ThrowingRunnable<Exception> close) {
            this.close = close;
        }

        @Override
        protected void doStop() throws Exception {
            close.run();
        }
    }
}
