package dev.keypool.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.keypool.camel.pipeline.RequestLog;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.store.Database;
import dev.keypool.store.RequestLogRow;
import dev.keypool.store.JdbcRequestLogWriter;
import dev.keypool.store.PostgresRequestLogWriter;
import dev.keypool.store.RequestLogWriter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.processor.aggregate.GroupedBodyAggregationStrategy;
import dev.keypool.testing.PostgresDatabase;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Not part of the suite (its name matches none of Surefire's test patterns): the request log's own CPU per row, in one
 * JVM, SQLite in a temporary directory, rows arriving at 4,000 a second (400 every 100 ms, as at 256 connections):
 * <ul>
 *   <li>{@code exchanges}: the former writer, an exchange per row through a seda queue, an aggregator of 500 rows or
 *   1 s and a camel-sql batch of one parameter map per row (auto-commit);</li>
 *   <li>{@code rows}: the writer of routes/request-log.camel.yaml, rows drained whole on a 1 s timer and inserted by
 *   {@link RequestLogWriter} in one transaction.</li>
 * </ul>
 * And on PostgreSQL ({@link #insert_against_copy_on_postgresql}, a real server started by the test): the batched INSERTs
 * of {@link JdbcRequestLogWriter} ({@code reWriteBatchedInserts}) against the COPY of {@link PostgresRequestLogWriter},
 * each draining its own queue every second, the server's CPU (its processes, from /proc) reported beside the JVM's.
 * The same rows are offered to both, alternated round by round; the process's CPU time (all threads: callers, writer,
 * GC, JIT) from the first offer until every row is in the table, less the idle process's, divided by the rows. CPU
 * time hardly moves with other load on the machine, where wall time and requests/s do.
 * {@code mvn -o test -Dtest=RequestLogCostBench -Dsurefire.failIfNoSpecifiedTests=false}
 */
class RequestLogCostBench {

    private static final int PER_TICK = 400;
    private static final int TICKS = 100;
    private static final int ROUNDS = 6;
    /** The former writer's statement: camel-sql's named parameters, one per column of the current writer. */
    private static final String OLD_INSERT = "sql:INSERT INTO request_log (" + String.join(", ", RequestLogWriter.COLUMNS)
            + ") VALUES (" + RequestLogWriter.COLUMNS.stream().map(c -> ":#" + c).collect(Collectors.joining(", "))
            + ")?dataSource=#oldDataSource&batch=true";
    private static final RecordComponent[] ROW_COMPONENTS = RequestLogRow.class.getRecordComponents();

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    @Test
    void exchanges_against_rows() throws Exception {
        assertThat(RequestLogWriter.COLUMNS).as("a column for each of the row's components").hasSize(ROW_COMPONENTS.length);
        Path dir = Files.createTempDirectory("keypool-log-bench-");
        try (Database oldDb = Database.open(Optional.empty(), dir.resolve("old"), 4, 5000);
             Database newDb = Database.open(Optional.empty(), dir.resolve("new"), 4, 5000)) {
            CamelContext context = new DefaultCamelContext();
            LinkedBlockingQueue<Exchange> oldQueue = new LinkedBlockingQueue<>(20_000);
            LinkedBlockingQueue<RequestLogRow> newQueue = new LinkedBlockingQueue<>(20_000);
            RequestLog requestLog = new RequestLog(true, newQueue, Clock.systemUTC(),
                    new GatewayMetrics(new SimpleMeterRegistry()), Duration.ofDays(30), false, 0);
            context.getRegistry().bind("oldQueue", oldQueue);
            context.getRegistry().bind("oldDataSource", oldDb.dataSource());
            context.getRegistry().bind("requestLog", requestLog);
            context.getRegistry().bind("requestLogWriter", new JdbcRequestLogWriter(newDb.dataSource()));
            context.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("seda:old-log?queue=#oldQueue&pollTimeout=100").routeId("exchanges")
                            .aggregate(constant("rows"), new GroupedBodyAggregationStrategy())
                            .completionSize(500).completionTimeout(1000).completionTimeoutCheckerInterval(1000)
                            .process(e -> e.getMessage().setBody(parameters(e.getMessage().getBody(List.class))))
                            .to(OLD_INSERT);
                    from("timer:new-log?period=1000&delay=1000").routeId("rows")
                            .setBody(method("requestLog", "drain"))
                            .filter(simple("${body.isEmpty()} == false"))
                            .bean("requestLogWriter", "insert");
                }
            });
            context.start();
            List<RequestLogRow> rows = rows(PER_TICK * TICKS);
            double idlePerSecond = idleCpuNanosPerSecond();
            System.out.printf("idle process: %.0f µs of CPU a second%n", idlePerSecond / 1000);
            for (int round = 0; round <= ROUNDS; round++) {
                // round 0 warms the JIT up for both and is not counted; the order alternates from round to round
                boolean exchangesFirst = round % 2 == 1;
                double first = run(exchangesFirst, rows, oldQueue, newQueue, context, oldDb.dataSource(),
                        newDb.dataSource(), idlePerSecond);
                double second = run(!exchangesFirst, rows, oldQueue, newQueue, context, oldDb.dataSource(),
                        newDb.dataSource(), idlePerSecond);
                if (round > 0) {
                    System.out.printf("round %d: exchanges %.2f µs/row, rows %.2f µs/row%n", round,
                            exchangesFirst ? first : second, exchangesFirst ? second : first);
                }
            }
            context.stop();
        }
    }

    @Test
    void insert_against_copy_on_postgresql() throws Exception {
        try (PostgresDatabase postgres = PostgresDatabase.start()) {
            Database db = postgres.database();
            List<RequestLogWriter> writers = List.of(new JdbcRequestLogWriter(db.dataSource()),
                    new PostgresRequestLogWriter(db.dataSource()));
            List<LinkedBlockingQueue<RequestLogRow>> queues = List.of(new LinkedBlockingQueue<>(20_000),
                    new LinkedBlockingQueue<>(20_000));
            ScheduledExecutorService beat = Executors.newSingleThreadScheduledExecutor();
            for (int w = 0; w < writers.size(); w++) {
                RequestLogWriter writer = writers.get(w);
                LinkedBlockingQueue<RequestLogRow> queue = queues.get(w);
                beat.scheduleAtFixedRate(() -> {
                    List<RequestLogRow> batch = new ArrayList<>();
                    queue.drainTo(batch);
                    try {
                        writer.insert(batch);
                    } catch (Exception e) {
                        e.printStackTrace();
                    }
                }, 1000, 1000, TimeUnit.MILLISECONDS);
            }
            List<RequestLogRow> rows = rows(PER_TICK * TICKS);
            double idlePerSecond = idleCpuNanosPerSecond();
            System.out.printf("idle process: %.0f µs of CPU a second%n", idlePerSecond / 1000);
            String[] names = {"insert", "copy"};
            for (int round = 0; round <= ROUNDS; round++) {
                for (int k = 0; k < 2; k++) {
                    int w = (k + round) % 2;
                    long serverStart = ticks(postgres.server().handle());
                    double perRow = run(names[w], rows, queues.get(w)::offer, db.dataSource(), idlePerSecond);
                    double serverPerRow = (ticks(postgres.server().handle()) - serverStart) * 1e6 / 100 / rows.size();
                    if (round > 0) {
                        System.out.printf("round %d: %s JVM %.2f µs/row, PostgreSQL server %.2f µs/row%n", round,
                                names[w], perRow, serverPerRow);
                    }
                }
            }
            beat.shutdownNow();
        }
    }

    /** CPU ticks (1/100 s) of a process and its descendants, their reaped children's included, from /proc. */
    private static long ticks(ProcessHandle process) throws Exception {
        long total = 0;
        for (ProcessHandle p : Stream.concat(Stream.of(process), process.descendants()).toList()) {
            String stat;
            try {
                stat = Files.readString(Path.of("/proc", String.valueOf(p.pid()), "stat"));
            } catch (IOException gone) {
                continue;
            }
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after the name: state(0) ppid ... utime(11) stime(12) cutime(13) cstime(14)
            total += Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        }
        return total;
    }

    /** One pass of every row through one writer, rows offered by {@code offer}: the process's CPU per row in µs. */
    private double run(String name, List<RequestLogRow> rows, Consumer<RequestLogRow> offer,
                         DataSource db, double idlePerSecond) throws Exception {
        long target = count(db) + rows.size();
        long wallStart = System.nanoTime();
        long cpuStart = os.getProcessCpuTime();
        int i = 0;
        for (int tick = 0; tick < TICKS; tick++) {
            long due = wallStart + tick * 100_000_000L;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            for (int k = 0; k < PER_TICK; k++, i++) {
                offer.accept(rows.get(i));
            }
        }
        while (count(db) < target) {
            Thread.sleep(200);
        }
        long cpu = os.getProcessCpuTime() - cpuStart;
        double seconds = (System.nanoTime() - wallStart) / 1e9;
        double perRow = (cpu - idlePerSecond * seconds) / rows.size() / 1000;
        System.out.printf("  %s: %d rows in %.1f s, process CPU %.0f ms (idle share %.0f ms): %.2f µs/row%n",
                name, rows.size(), seconds, cpu / 1e6, idlePerSecond * seconds / 1e6, perRow);
        return perRow;
    }

    /** One pass of every row through one of the SQLite writers: its CPU per row in µs. */
    private double run(boolean exchanges, List<RequestLogRow> rows, LinkedBlockingQueue<Exchange> oldQueue,
                       LinkedBlockingQueue<RequestLogRow> newQueue, CamelContext context, DataSource oldDb,
                       DataSource newDb, double idlePerSecond) throws Exception {
        Consumer<RequestLogRow> offer = exchanges ? row -> {
            Exchange exchange = new DefaultExchange(context);
            exchange.getMessage().setBody(row);
            oldQueue.offer(exchange);
        } : newQueue::offer;
        return run(exchanges ? "exchanges" : "rows", rows, offer, exchanges ? oldDb : newDb, idlePerSecond);
    }

    private double idleCpuNanosPerSecond() throws InterruptedException {
        long start = System.nanoTime();
        long cpuStart = os.getProcessCpuTime();
        Thread.sleep(10_000);
        return (os.getProcessCpuTime() - cpuStart) / ((System.nanoTime() - start) / 1e9);
    }

    /** Rows as a served chat completion leaves them: every column but the bodies set. */
    private static List<RequestLogRow> rows(int count) {
        List<RequestLogRow> rows = new ArrayList<>(count);
        long now = System.currentTimeMillis();
        for (int i = 0; i < count; i++) {
            rows.add(new RequestLogRow(now + i, "req_" + Long.toHexString(0x8000_0000_0000_0000L | i * 7919L)
                    + "c0ffee", "api", "none", "chat", "gpt-4o-mini", "gpt-4o-mini", "primary", "3f2a9c1b", "shared", 1, 0,
                    200, null, 11, 7, 0, 0, 0.0000123, 51, null, null, null));
        }
        return rows;
    }

    /**
     * The former writer's parameters: one map per row, by column name, each column's value read from the row's component
     * at its position (the current writer binds by the same positions); the time as the row holds it, epoch milliseconds.
     */
    private static List<Map<String, Object>> parameters(List<?> rows) throws ReflectiveOperationException {
        List<Map<String, Object>> parameters = new ArrayList<>(rows.size());
        for (Object row : rows) {
            Map<String, Object> p = new HashMap<>(32);
            for (int i = 0; i < ROW_COMPONENTS.length; i++) {
                p.put(RequestLogWriter.COLUMNS.get(i), ROW_COMPONENTS[i].getAccessor().invoke(row));
            }
            parameters.add(p);
        }
        return parameters;
    }

    private static long count(DataSource db) throws Exception {
        // rows are only added, ids ascending: the highest id is the count, read from the primary key's b-tree
        // without a scan whose cost would grow with the table
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT coalesce(max(id), 0) FROM request_log")) {
            r.next();
            return r.getLong(1);
        }
    }
}
