package dev.keypool.testing;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

import org.apache.camel.CamelContext;
import org.apache.camel.ServiceStatus;
import org.apache.camel.spi.CamelContextTracker;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * No test class leaves a Camel context running, or registered in JMX, for the next class of its JVM: a gateway left
 * running keeps its threads, port and memory for the rest of the run, and the next class that looks a context up over
 * JMX finds two, its own renamed ({@code keypool-1}). A class fails when a context made during its callbacks and tests
 * is still started after its last callback ({@link CamelContextTracker}), or when a context it registered in JMX is
 * still there (one made before the class's callbacks, e.g. in a field of a class with one instance, or one whose start
 * failed half-way). Registered for every test class by JUnit's extension auto-detection (junit-platform.properties,
 * META-INF/services); its cost per class is one query of the platform MBean server and a look at the contexts made.
 */
public final class NoCamelContextLeft implements BeforeAllCallback, AfterAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(NoCamelContextLeft.class);
    private static final ObjectName CONTEXTS = contexts();

    /** The contexts made while it is open. */
    private static final class Made extends CamelContextTracker {
        private final List<CamelContext> contexts = new ArrayList<>();

        @Override
        public synchronized void contextCreated(CamelContext context) {
            contexts.add(context);
        }

        synchronized Set<String> running() {
            Set<String> names = new TreeSet<>();
            for (CamelContext context : contexts) {
                ServiceStatus status = context.getStatus();
                if (status.isStarted() || status.isStarting() || status.isSuspended()) {
                    names.add(context.getName());
                }
            }
            return names;
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Made made = new Made();
        made.open();
        context.getStore(NAMESPACE).put(Made.class, made);
        context.getStore(NAMESPACE).put(CONTEXTS, registered());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Made made = context.getStore(NAMESPACE).remove(Made.class, Made.class);
        @SuppressWarnings("unchecked")
        Set<String> before = context.getStore(NAMESPACE).remove(CONTEXTS, Set.class);
        Set<String> running = Set.of();
        if (made != null) {
            made.close();
            running = made.running();
        }
        Set<String> registered = registered();
        if (before != null) {
            registered.removeAll(before);
        }
        if (!running.isEmpty() || !registered.isEmpty()) {
            throw new AssertionError(context.getDisplayName() + " left Camel contexts running " + running
                    + ", registered in JMX " + registered);
        }
    }

    private static Set<String> registered() {
        Set<String> names = new TreeSet<>();
        ManagementFactory.getPlatformMBeanServer().queryNames(CONTEXTS, null)
                .forEach(name -> names.add(name.getKeyProperty("context")));
        return names;
    }

    private static ObjectName contexts() {
        try {
            return new ObjectName("org.apache.camel:type=context,*");
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }
}
