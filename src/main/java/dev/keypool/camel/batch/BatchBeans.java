package dev.keypool.camel.batch;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.batch.BatchLimits;
import dev.keypool.batch.BatchStore;
import dev.keypool.batch.Claimant;
import dev.keypool.batch.DiskBatchStore;
import dev.keypool.batch.DiskFileStore;
import dev.keypool.batch.DiskTaskStore;
import dev.keypool.batch.FileStore;
import dev.keypool.batch.Ids;
import dev.keypool.batch.TaskStore;
import dev.keypool.batch.TenantStorage;
import dev.keypool.camel.GatewayConfiguration;
import dev.keypool.camel.pipeline.RecentCustomIds;
import dev.keypool.config.Durations;
import dev.keypool.store.JdbcBatchStore;
import dev.keypool.store.JdbcFileStore;
import dev.keypool.store.JdbcTaskStore;
import dev.keypool.tenant.Tenants;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The beans of routes/batch.camel.yaml (design §12), bound by {@link GatewayConfiguration}: the batch API, the batch
 * runner, async tasks, and the threads that run batch lines ({@code batch.concurrency} of them: the most lines of
 * batches in flight at once). Files, batches, their results and tasks live in the database several instances share
 * when keypool.yaml's database.url names one, else under {@code state.dir/batch/}; this instance claims its work in
 * either with leases of {@code batch.lease}, which the heartbeat ({@code batch.heartbeat-ms}) renews, and gives them up
 * when it stops.
 */
public final class BatchBeans extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(BatchBeans.class);
    /**
     * How many custom_ids the Kafka route remembers (~2 MB): a rebalance redelivers at most a poll's records per
     * partition, 1,000 for 100 partitions at batch.kafka.maxPollRecords 10. One that is forgotten runs again.
     */
    static final int RECENT_CUSTOM_IDS = 10_000;

    private final ExecutorService lineThreads;
    private final BatchStore batches;
    private final TaskStore tasks;
    private final Claimant claimant;

    private BatchBeans(ExecutorService lineThreads, BatchStore batches, TaskStore tasks, Claimant claimant) {
        this.lineThreads = lineThreads;
        this.batches = batches;
        this.tasks = tasks;
        this.claimant = claimant;
    }

    /** The three stores, all on this instance's disk or all in the shared database. */
    private record Stores(FileStore files, BatchStore batches, TaskStore tasks, String where) {
    }

    /**
     * @param shared   the database several instances share (PostgreSQL), or null to keep everything in state.dir
     * @param instance this instance's id (keypool.instance-id), which its leases name
     */
    public static void bind(CamelContext context, Tenants tenants, ObjectMapper mapper, Clock clock, DataSource shared,
                            String instance) {
        PropertiesComponent properties = context.getPropertiesComponent();
        Path dir = Path.of(setting(properties, "state.dir")).resolve("batch");
        int concurrency = Integer.parseInt(setting(properties, "batch.concurrency"));
        if (concurrency < 1) {
            throw new IllegalStateException("batch.concurrency must be at least 1, was " + concurrency);
        }
        BatchLimits limits = limits(properties);
        Claimant claimant = claimant(properties, instance);
        Stores stores = shared == null ? onDisk(dir, mapper, clock, limits)
                : new Stores(new JdbcFileStore(shared, mapper, clock, limits), new JdbcBatchStore(shared, mapper),
                new JdbcTaskStore(shared, mapper, clock, limits), "the shared database");
        FileStore files = stores.files();
        BatchStore batches = stores.batches();
        var registry = context.getRegistry();
        registry.bind("batchApi", new BatchApi(files, batches, mapper, clock, limits));
        String inboxTenant = tenant(properties, tenants, "batch.inbox-tenant");
        BatchLines batchLines = new BatchLines(batches, files, mapper, clock, inboxTenant, claimant);
        registry.bind("batchLines", batchLines);
        boolean kafka = properties.resolveProperty("batch.kafka.bootstrapServers").filter(b -> !b.isBlank()).isPresent();
        // custom_ids of the records the Kafka route took last (its idempotent consumer)
        RecentCustomIds taken = new RecentCustomIds(RECENT_CUSTOM_IDS);
        registry.bind("kafkaLines", new KafkaLines(batchLines, mapper,
                kafka ? tenant(properties, tenants, "batch.kafka.tenant") : null, taken, duration(properties, "batch.kafka.maxHold")));
        registry.bind("batchResultsSeen", taken);
        registry.bind("asyncTasks", new AsyncTasks(stores.tasks(), mapper, clock, claimant));
        // platform threads, not Camel's pools: with camel.threads.virtual.enabled those are unbounded
        ExecutorService lineThreads = Executors.newFixedThreadPool(concurrency, named("batch-line-"));
        registry.bind("batchLineThreads", lineThreads);
        try {
            context.addService(new BatchBeans(lineThreads, batches, stores.tasks(), claimant), true, true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the batch service", e);
        }
        LOG.info("Batches: {} lines in flight at most (batch.concurrency), tasks and files kept {} (batch.retention), "
                + "per tenant {} tasks queued and {} bytes stored at most, state in {}; claimed as {} with leases of {} "
                + "(batch.lease)", concurrency, Durations.format(limits.retention()), limits.maxQueuedTasks(),
                limits.maxStoredBytes(), stores.where(), claimant.id(), Durations.format(claimant.lease()));
    }

    private static Stores onDisk(Path dir, ObjectMapper mapper, Clock clock, BatchLimits limits) {
        // one count per tenant for its tasks and its files alike
        TenantStorage storage = new TenantStorage(limits.maxStoredBytes());
        return new Stores(new DiskFileStore(dir.resolve("files"), mapper, clock, limits, storage),
                new DiskBatchStore(dir.resolve("batches"), mapper),
                new DiskTaskStore(dir.resolve("tasks"), mapper, clock, limits, storage), dir.toString());
    }

    /** The batch.* limits; a startup error when one is out of range. */
    private static BatchLimits limits(PropertiesComponent properties) {
        try {
            return new BatchLimits(duration(properties, "batch.retention"),
                    Integer.parseInt(setting(properties, "batch.max-queued-tasks")),
                    Long.parseLong(setting(properties, "batch.max-stored-bytes")),
                    Long.parseLong(setting(properties, "batch.max-file-bytes")));
        } catch (IllegalArgumentException outOfRange) {
            throw new IllegalStateException(outOfRange.getMessage(), outOfRange);
        }
    }

    /**
     * This instance in the leases: its instance id (which /admin/status shows) and a new random part at each start, so
     * that a restarted instance is a new member and what it held before is claimed as any dead member's. The lease
     * must outlast a few heartbeats, so that a heartbeat late by a pause does not lose it.
     */
    private static Claimant claimant(PropertiesComponent properties, String instance) {
        Duration lease = duration(properties, "batch.lease");
        long heartbeatMs = Long.parseLong(setting(properties, "batch.heartbeat-ms"));
        if (heartbeatMs < 1 || lease.toMillis() < 2 * heartbeatMs) {
            throw new IllegalStateException("batch.lease (" + Durations.format(lease) + ") must be at least twice "
                    + "batch.heartbeat-ms (" + heartbeatMs + ")");
        }
        return new Claimant(instance + "-" + Ids.next("").substring(0, 8), lease);
    }

    /**
     * After the routes: no line or task runs here any more. The leases are given up rather than left to run out, so
     * that the lines without a result and the tasks not done are claimed by another instance at once, not after
     * batch.lease.
     */
    @Override
    protected void doStop() throws InterruptedException {
        lineThreads.shutdownNow();
        lineThreads.awaitTermination(5, TimeUnit.SECONDS);
        try {
            int batchLeases = batches.release(claimant);
            int taskLeases = tasks.release(claimant);
            LOG.info("Leases of {} given up for the other instances to claim: batches {}, tasks not done {}",
                    claimant.id(), batchLeases, taskLeases);
        } catch (RuntimeException e) {
            LOG.warn("Could not give up the leases of {} ({}): its unfinished work waits for batch.lease", claimant.id(),
                    e.toString());
        } finally {
            batches.close();
        }
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** The tenant a queue's lines run for; a startup error when it names none of keypool.yaml. */
    private static String tenant(PropertiesComponent properties, Tenants tenants, String setting) {
        String name = properties.resolveProperty(setting).filter(t -> !t.isBlank()).orElse(null);
        if (name != null && tenants.named(name).isEmpty()) {
            throw new IllegalStateException(setting + ": no tenant named '" + name + "' in keypool.yaml");
        }
        if (name == null && tenants.enforced()) {
            LOG.warn("{} is not set: with tenants configured, every line from that queue will be refused 401", setting);
        }
        return name;
    }

    private static Duration duration(PropertiesComponent properties, String name) {
        try {
            return Durations.parse(setting(properties, name));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(name + ": " + e.getMessage(), e);
        }
    }

    private static String setting(PropertiesComponent properties, String name) {
        return properties.resolveProperty(name).orElseThrow(() -> new IllegalStateException(
                "Setting " + name + " is missing: start KeyPool with its application.properties"));
    }
}
