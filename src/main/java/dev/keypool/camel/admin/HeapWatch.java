package dev.keypool.camel.admin;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.keypool.gateway.HeapPressure;
import dev.keypool.gateway.InFlightLimit;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the in-flight limit's {@link HeapPressure} what each full collection left in the old generation, from the
 * JVM's own GC notifications (Serial, Parallel and G1 report their full collections as "end of major GC"; other
 * collectors set no cap). Listens from the context's start to its stop, on the JVM's notification thread, after the
 * collection; does nothing when the heap limit is off (1 or more).
 */
public final class HeapWatch extends ServiceSupport implements NotificationListener {

    private static final Logger LOG = LoggerFactory.getLogger(HeapWatch.class);

    private final InFlightLimit limit;
    private final long maxHeap = Runtime.getRuntime().maxMemory();

    public HeapWatch(InFlightLimit limit) {
        this.limit = limit;
    }

    @Override
    protected void doStart() {
        for (NotificationEmitter collector : collectors()) {
            collector.addNotificationListener(this, null, null);
        }
    }

    @Override
    protected void doStop() throws ListenerNotFoundException {
        for (NotificationEmitter collector : collectors()) {
            collector.removeNotificationListener(this);
        }
    }

    /** The collectors that tell of their collections; none to listen to when the heap limit is off. */
    private List<NotificationEmitter> collectors() {
        if (limit.heap().limit() >= 1) {
            return List.of();
        }
        List<NotificationEmitter> emitters = new ArrayList<>();
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (collector instanceof NotificationEmitter emitter) {
                emitters.add(emitter);
            }
        }
        return emitters;
    }

    @Override
    public void handleNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        if (!"end of major GC".equals(info.getGcAction())) {
            return;
        }
        for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            String name = pool.getKey();
            if (name.endsWith("Old Gen") || name.equals("Tenured Gen")) {
                MemoryUsage after = pool.getValue();
                long max = after.getMax() > 0 ? after.getMax() : maxHeap;
                observe((double) after.getUsed() / max);
                return;
            }
        }
    }

    private void observe(double occupancy) {
        int inFlight = limit.inFlight();
        int before = limit.heap().cap();
        int cap = limit.heap().afterFullCollection(occupancy, inFlight);
        if (cap != before) {
            if (cap == HeapPressure.NONE) {
                LOG.info("Heap eased: a full collection left the old generation {}% full; back to at most {} requests in"
                        + " flight (keypool.max-in-flight)", Math.round(occupancy * 100), limit.max());
            } else if (before == HeapPressure.NONE) {
                LOG.warn("Heap nearly full: a full collection left the old generation {}% full with {} requests in flight;"
                        + " taking at most {} until it eases, the rest get 503 overloaded (keypool.heap-limit {})",
                        Math.round(occupancy * 100), inFlight, cap, limit.heap().limit());
            } else {
                LOG.debug("Heap still nearly full: the old generation {}% full after a full collection with {} requests in"
                        + " flight; at most {} now", Math.round(occupancy * 100), inFlight, cap);
            }
        }
    }
}
