package dev.keypool.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
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

import javax.sql.DataSource;

import dev.keypool.store.Database;
import dev.keypool.store.JdbcRequestLogWriter;
import dev.keypool.store.PostgresRequestLogWriter;
import dev.keypool.store.RequestLogRow;
import dev.keypool.store.RequestLogWriter;
import dev.keypool.testing.PostgresDatabase;
import org.junit.jupiter.api.Test;

/**
 * Not part of the suite (its name matches none of Surefire's test patterns): the request log's writer alone, its CPU
 * per row, in one JVM, rows arriving at 4,000 a second (400 every 100 ms, as at 256 connections), each writer draining
 * its own queue on the gateway's beat ({@code keypool.request-log.batch-ms}, 100 ms), so that a batch holds as many
 * rows as the gateway's do:
 * <ul>
 *   <li>{@link #batched_against_multi_row_on_sqlite}: SQLite in a temporary directory, {@link JdbcRequestLogWriter}
 *   (one row per INSERT, sent in JDBC batches, one transaction per beat) against 32 rows to an INSERT bound as the
 *   former writer bound them, one transaction per beat (docs/decisions.md, "The request log on SQLite: what a row
 *   costs");</li>
 *   <li>{@link #writer_thread_variants_on_sqlite}: the SQLite writer's own thread, CPU and allocation per row, the
 *   writer as it is against variants ({@code bench.variants}): {@code former} (a copy of the writer before its ids were
 *   made from the time: SQLite's own ids, the {@code ts} index, every value bound, serialized mode), {@code ts-index}
 *   and {@code mutex} (the index, the serialized mode added back), {@code all-bound} (every value bound, a null as
 *   NULL), {@code page4k}, {@code ckpt10k} (a checkpoint setting), {@code json} (the rows as one JSON array);</li>
 *   <li>{@link #insert_against_copy_on_postgresql}: a real PostgreSQL started by the test, the batched INSERTs
 *   ({@code reWriteBatchedInserts}) against the COPY of {@link PostgresRequestLogWriter}, the server's CPU (its
 *   processes, from /proc) reported beside the JVM's.</li>
 * </ul>
 * The same rows are offered to both, alternated round by round; the process's CPU time (all threads: callers, writer,
 * GC, JIT) from the first offer until every row is in the table, less the idle process's, divided by the rows. CPU
 * time hardly moves with other load on the machine, where wall time and requests/s do.
 * {@code mvn -o test -Dtest=RequestLogCostBench -Dsurefire.failIfNoSpecifiedTests=false}
 */
class RequestLogCostBench {

    private static final int PER_TICK = 400;
    private static final int TICKS = 100;
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 6);
    /** The gateway's beat, keypool.request-log.batch-ms. */
    private static final long BEAT_MS = 100;
    /** Rows to a statement in the multi-row variant. */
    private static final int MULTI_ROWS = 32;
    private static final int WIDTH = RequestLogWriter.COLUMNS.size();

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** A writer under test: a batch of rows into its database. */
    private interface Insert {
        void insert(List<RequestLogRow> rows) throws Exception;
    }

    @Test
    void batched_against_multi_row_on_sqlite() throws Exception {
        Path dir = Files.createTempDirectory("keypool-log-bench-");
        try (Database batchedDb = Database.open(Optional.empty(), dir.resolve("batched"), 4, 5000);
             Database multiRowDb = Database.open(Optional.empty(), dir.resolve("multi-row"), 4, 5000)) {
            compare(List.of("batched", "multi-row"),
                    List.of(new JdbcRequestLogWriter(batchedDb.dataSource())::insert, rows -> multiRow(multiRowDb.dataSource(), rows)),
                    List.of(batchedDb.dataSource(), multiRowDb.dataSource()), null);
        }
    }

    /**
     * The SQLite writer's own thread, its CPU and allocation per row, for variants of the schema and of the statement:
     * every variant on its own database, the same batches of {@link #PER_TICK} rows, the variants taking turns batch by
     * batch (the order rotating), each batch timed on the inserting thread alone ({@code ThreadMXBean}), so that
     * neither GC nor the rest of the process nor the machine's other load enters the figure. Round 0 warms up.
     */
    @Test
    void writer_thread_variants_on_sqlite() throws Exception {
        Path dir = Files.createTempDirectory("keypool-log-bench-");
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.ThreadMXBean allocations = (com.sun.management.ThreadMXBean) threads;
        Map<String, Database> databases = new java.util.LinkedHashMap<>();
        Map<String, Insert> writers = new java.util.LinkedHashMap<>();
        List<String> variants = List.of(System.getProperty("bench.variants",
                "current,former,ts-index,mutex,all-bound").split(","));
        try {
            List<AutoCloseable> pools = new ArrayList<>();
            for (String variant : variants) {
                if (variant.equals("page4k")) {
                    // SQLite's default pages, as a file made before Database made them 16 KiB: set before WAL
                    Files.createDirectories(dir.resolve(variant));
                    try (Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:"
                            + dir.resolve(variant).resolve(Database.SQLITE_FILE)); Statement s = c.createStatement()) {
                        s.execute("PRAGMA page_size = 4096");
                        s.execute("PRAGMA journal_mode = WAL");
                    }
                }
                Database db = Database.open(Optional.empty(), dir.resolve(variant), 4, 5000);
                databases.put(variant, db);
                try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                    switch (variant) {
                        // the index on ts that SQLite's schema had until V7
                        case "former", "ts-index" -> s.execute("CREATE INDEX request_log_ts ON request_log (ts)");
                        default -> { }
                    }
                }
                DataSource source = db.dataSource();
                if (variant.equals("former") || variant.equals("mutex") || variant.equals("ckpt10k")) {
                    // the URL without open_mode (SQLite's serialized mode, a lock taken in every call), as before
                    com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
                    config.setJdbcUrl(((com.zaxxer.hikari.HikariDataSource) db.dataSource()).getJdbcUrl()
                            .replaceAll("&open_mode=[0-9]+", ""));
                    if (variant.equals("ckpt10k")) {
                        config.setConnectionInitSql("PRAGMA wal_autocheckpoint = 10000");
                    }
                    config.setMaximumPoolSize(4);
                    com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(config);
                    pools.add(pool);
                    source = pool;
                }
                DataSource writeTo = source;
                writers.put(variant, switch (variant) {
                    case "json" -> rows -> json(writeTo, rows);
                    case "former", "ckpt10k" -> new FormerWriter(writeTo)::insert;
                    case "all-bound" -> rows -> allBound(writeTo, rows);
                    default -> new JdbcRequestLogWriter(writeTo)::insert;
                });
            }
            Map<String, List<Double>> cpuPerRound = new HashMap<>();
            Map<String, List<Double>> bytesPerRound = new HashMap<>();
            for (int round = 0; round <= ROUNDS; round++) {
                // each round's rows later than the round before's, as a gateway's are: ids made from the time go on
                List<RequestLogRow> rows = rows(PER_TICK * TICKS, System.currentTimeMillis() + round * 100_000_000L);
                Map<String, long[]> sums = new HashMap<>();
                for (int tick = 0; tick < TICKS; tick++) {
                    List<RequestLogRow> batch = rows.subList(tick * PER_TICK, (tick + 1) * PER_TICK);
                    for (int k = 0; k < variants.size(); k++) {
                        String variant = variants.get((k + tick + round) % variants.size());
                        long cpu = threads.getCurrentThreadCpuTime();
                        long bytes = allocations.getCurrentThreadAllocatedBytes();
                        writers.get(variant).insert(batch);
                        long[] sum = sums.computeIfAbsent(variant, v -> new long[2]);
                        sum[0] += threads.getCurrentThreadCpuTime() - cpu;
                        sum[1] += allocations.getCurrentThreadAllocatedBytes() - bytes;
                    }
                }
                if (round == 0) {
                    continue;
                }
                StringBuilder line = new StringBuilder("round " + round + ":");
                for (String variant : variants) {
                    long[] sum = sums.get(variant);
                    double us = sum[0] / 1000.0 / rows.size();
                    double b = (double) sum[1] / rows.size();
                    cpuPerRound.computeIfAbsent(variant, v -> new ArrayList<>()).add(us);
                    bytesPerRound.computeIfAbsent(variant, v -> new ArrayList<>()).add(b);
                    line.append(String.format(" %s %.2f µs %.0f B;", variant, us, b));
                }
                System.out.println(line);
            }
            String base = variants.get(0);
            for (String variant : variants) {
                List<Double> v = cpuPerRound.get(variant).stream().sorted().toList();
                List<Double> paired = new ArrayList<>();
                for (int i = 0; i < v.size(); i++) {
                    paired.add(cpuPerRound.get(variant).get(i) - cpuPerRound.get(base).get(i));
                }
                List<Double> p = paired.stream().sorted().toList();
                System.out.printf("%s: writer thread median %.2f µs/row (%.2f-%.2f), paired with %s %+.2f µs (%+.2f to %+.2f);"
                                + " allocated %.0f B/row%n", variant, median(v), v.get(0), v.get(v.size() - 1), base,
                        median(p), p.get(0), p.get(p.size() - 1), median(bytesPerRound.get(variant).stream().sorted().toList()));
            }
            for (AutoCloseable pool : pools) {
                pool.close();
            }
        } finally {
            for (Database db : databases.values()) {
                db.close();
            }
        }
    }

    /**
     * SQLite's writer as it was before its ids were made from the time: SQLite's own rowid, every value bound (the
     * {@code ts} index and the serialized mode are the variant's database): one prepared statement in JDBC batches of
     * 500, one transaction per call.
     */
    static final class FormerWriter {

        private static final String INSERT = "INSERT INTO request_log (" + String.join(", ", RequestLogWriter.COLUMNS)
                + ") VALUES (" + String.join(", ", Collections.nCopies(WIDTH, "?")) + ")";

        private final DataSource dataSource;

        FormerWriter(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        void insert(List<RequestLogRow> rows) throws SQLException {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
                    int pending = 0;
                    for (RequestLogRow row : rows) {
                        bind(insert, 0, row);
                        insert.addBatch();
                        if (++pending == 500) {
                            insert.executeBatch();
                            pending = 0;
                        }
                    }
                    if (pending > 0) {
                        insert.executeBatch();
                    }
                    connection.commit();
                } catch (SQLException | RuntimeException e) {
                    connection.rollback();
                    throw e;
                } finally {
                    connection.setAutoCommit(true);
                }
            }
        }

        /** The row's 23 values after {@code offset}, typed setters by position, nulls bound as NULL. */
        static void bind(PreparedStatement insert, int offset, RequestLogRow row) throws SQLException {
            insert.setLong(offset + 1, row.ts());
            insert.setString(offset + 2, row.requestId());
            insert.setString(offset + 3, row.source());
            insert.setString(offset + 4, row.tenant());
            insert.setString(offset + 5, row.api());
            insert.setString(offset + 6, row.model());
            insert.setString(offset + 7, row.servedModel());
            insert.setString(offset + 8, row.channel());
            insert.setString(offset + 9, row.keyFingerprint());
            insert.setString(offset + 10, row.pool());
            insert.setInt(offset + 11, row.attempts());
            if (row.fallbackLevel() == null) {
                insert.setNull(offset + 12, Types.INTEGER);
            } else {
                insert.setInt(offset + 12, row.fallbackLevel());
            }
            insert.setInt(offset + 13, row.status());
            insert.setString(offset + 14, row.errorCode());
            insert.setLong(offset + 15, row.promptTokens());
            insert.setLong(offset + 16, row.completionTokens());
            insert.setLong(offset + 17, row.cachedTokens());
            insert.setLong(offset + 18, row.cacheWriteTokens());
            insert.setDouble(offset + 19, row.costUsd());
            insert.setLong(offset + 20, row.latencyMs());
            if (row.ttfbMs() == null) {
                insert.setNull(offset + 21, Types.BIGINT);
            } else {
                insert.setLong(offset + 21, row.ttfbMs());
            }
            insert.setString(offset + 22, row.requestBody());
            insert.setString(offset + 23, row.answerBody());
        }
    }

    /** Ids made from the time as the current writer makes them, but every value bound, a null as NULL. */
    private static final Map<DataSource, long[]> ALL_BOUND_SEQUENCE = new HashMap<>();

    private static void allBound(DataSource dataSource, List<RequestLogRow> rows) throws SQLException {
        long[] last = ALL_BOUND_SEQUENCE.computeIfAbsent(dataSource, d -> new long[] {Long.MIN_VALUE, 0});
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO request_log (id, "
                    + String.join(", ", RequestLogWriter.COLUMNS) + ") VALUES (?, "
                    + String.join(", ", Collections.nCopies(WIDTH, "?")) + ") ON CONFLICT (id) DO NOTHING")) {
                int pending = 0;
                for (RequestLogRow row : rows) {
                    if (row.ts() != last[0]) {
                        last[0] = row.ts();
                        last[1] = 0;
                    }
                    insert.setLong(1, (row.ts() << 20) + last[1]++);
                    FormerWriter.bind(insert, 1, row);
                    insert.addBatch();
                    if (++pending == 64) {
                        insert.executeBatch();
                        pending = 0;
                    }
                }
                if (pending > 0) {
                    insert.executeBatch();
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }

    private static double median(List<Double> sorted) {
        return (sorted.get((sorted.size() - 1) / 2) + sorted.get(sorted.size() / 2)) / 2;
    }

    /** A batch as one JSON array bound to one statement: one JNI call for the batch, SQLite reads the values. */
    private static void json(DataSource dataSource, List<RequestLogRow> rows) throws SQLException {
        StringBuilder sql = new StringBuilder("INSERT INTO request_log (" + String.join(", ", RequestLogWriter.COLUMNS)
                + ") SELECT ");
        for (int i = 0; i < WIDTH; i++) {
            sql.append(i == 0 ? "" : ", ").append("value ->> ").append(i);
        }
        sql.append(" FROM json_each(?)");
        StringBuilder text = new StringBuilder(rows.size() * 256);
        text.append('[');
        for (RequestLogRow row : rows) {
            if (text.length() > 1) {
                text.append(',');
            }
            text.append('[').append(row.ts());
            for (Object value : new Object[] {row.requestId(), row.source(), row.tenant(), row.api(), row.model(),
                    row.servedModel(), row.channel(), row.keyFingerprint(), row.pool(), row.attempts(),
                    row.fallbackLevel(), row.status(), row.errorCode(), row.promptTokens(), row.completionTokens(),
                    row.cachedTokens(), row.cacheWriteTokens(), row.costUsd(), row.latencyMs(), row.ttfbMs(),
                    row.requestBody(), row.answerBody()}) {
                text.append(',');
                if (value instanceof String string) {
                    text.append('"');
                    for (int i = 0; i < string.length(); i++) {
                        char ch = string.charAt(i);
                        if (ch == '"' || ch == '\\') {
                            text.append('\\').append(ch);
                        } else if (ch < 0x20) {
                            text.append(String.format("\\u%04x", (int) ch));
                        } else {
                            text.append(ch);
                        }
                    }
                    text.append('"');
                } else {
                    text.append(value);
                }
            }
            text.append(']');
        }
        text.append(']');
        try (Connection connection = dataSource.getConnection();
             PreparedStatement insert = connection.prepareStatement(sql.toString())) {
            insert.setString(1, text.toString());
            insert.executeUpdate();
        }
    }

    @Test
    void insert_against_copy_on_postgresql() throws Exception {
        try (PostgresDatabase postgres = PostgresDatabase.start()) {
            Database db = postgres.database();
            // the SQLite writer's batched INSERTs, on PostgreSQL as pgjdbc rewrites them (reWriteBatchedInserts)
            compare(List.of("insert", "copy"),
                    List.of(new FormerWriter(db.dataSource())::insert,
                            new PostgresRequestLogWriter(db.dataSource())::insert),
                    List.of(db.dataSource(), db.dataSource()), postgres.server().handle());
        }
    }

    /**
     * Each writer draining its own queue every {@link #BEAT_MS}; every row offered to each in turn, the order
     * alternating from round to round (round 0 warms the JIT up and is not counted).
     */
    private void compare(List<String> names, List<Insert> writers, List<DataSource> databases, ProcessHandle server)
            throws Exception {
        List<LinkedBlockingQueue<RequestLogRow>> queues = List.of(new LinkedBlockingQueue<>(20_000),
                new LinkedBlockingQueue<>(20_000));
        ScheduledExecutorService beat = Executors.newSingleThreadScheduledExecutor();
        for (int w = 0; w < writers.size(); w++) {
            Insert writer = writers.get(w);
            LinkedBlockingQueue<RequestLogRow> queue = queues.get(w);
            beat.scheduleAtFixedRate(() -> {
                List<RequestLogRow> batch = new ArrayList<>();
                queue.drainTo(batch);
                try {
                    if (!batch.isEmpty()) {
                        writer.insert(batch);
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                }
            }, BEAT_MS, BEAT_MS, TimeUnit.MILLISECONDS);
        }
        try {
            double idlePerSecond = idleCpuNanosPerSecond();
            System.out.printf("idle process: %.0f µs of CPU a second%n", idlePerSecond / 1000);
            Map<String, List<Double>> perRow = new HashMap<>();
            for (int round = 0; round <= ROUNDS; round++) {
                for (int k = 0; k < 2; k++) {
                    int w = (k + round) % 2;
                    // later rows every pass, as a gateway's are: ids made from the time go on
                    List<RequestLogRow> rows = rows(PER_TICK * TICKS,
                            System.currentTimeMillis() + (2L * round + k) * 100_000_000L);
                    long serverStart = server == null ? 0 : ticks(server);
                    double cpu = run(names.get(w), rows, queues.get(w)::offer, databases.get(w), idlePerSecond);
                    double serverPerRow = server == null ? 0 : (ticks(server) - serverStart) * 1e6 / 100 / rows.size();
                    if (round > 0) {
                        perRow.computeIfAbsent(names.get(w), n -> new ArrayList<>()).add(cpu);
                        System.out.printf("round %d: %s JVM %.2f µs/row%s%n", round, names.get(w), cpu,
                                server == null ? "" : String.format(", PostgreSQL server %.2f µs/row", serverPerRow));
                    }
                }
            }
            for (String name : names) {
                List<Double> v = perRow.get(name).stream().sorted().toList();
                System.out.printf("%s: median %.2f µs/row (%.2f-%.2f)%n", name,
                        (v.get((v.size() - 1) / 2) + v.get(v.size() / 2)) / 2, v.get(0), v.get(v.size() - 1));
            }
        } finally {
            beat.shutdownNow();
        }
    }

    /**
     * The SQLite writer measured against the current one: 32 rows to a statement ({@code INSERT ... VALUES (...), (...),
     * ...}), the rows left over in one statement of their own, one transaction.
     */
    private static void multiRow(DataSource dataSource, List<RequestLogRow> rows) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                int whole = rows.size() - rows.size() % MULTI_ROWS;
                if (whole > 0) {
                    multiRowStatements(connection, rows.subList(0, whole));
                }
                if (whole < rows.size()) {
                    multiRowStatements(connection, rows.subList(whole, rows.size()));
                }
                connection.commit();
            } catch (Exception e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }

    private static void multiRowStatements(Connection connection, List<RequestLogRow> rows) throws SQLException {
        int perStatement = Math.min(rows.size(), MULTI_ROWS);
        String values = "(" + String.join(", ", Collections.nCopies(WIDTH, "?")) + ")";
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO request_log ("
                + String.join(", ", RequestLogWriter.COLUMNS) + ") VALUES "
                + String.join(", ", Collections.nCopies(perStatement, values)))) {
            for (int start = 0; start < rows.size(); start += perStatement) {
                for (int k = 0; k < perStatement; k++) {
                    FormerWriter.bind(insert, k * WIDTH, rows.get(start + k));
                }
                insert.executeUpdate();
            }
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

    private double idleCpuNanosPerSecond() throws InterruptedException {
        long start = System.nanoTime();
        long cpuStart = os.getProcessCpuTime();
        Thread.sleep(10_000);
        return (os.getProcessCpuTime() - cpuStart) / ((System.nanoTime() - start) / 1e9);
    }

    /** Rows as a served chat completion leaves them: every column but the bodies set. */
    private static List<RequestLogRow> rows(int count) {
        return rows(count, System.currentTimeMillis());
    }

    /** The rows from {@code now}, one a millisecond. */
    private static List<RequestLogRow> rows(int count, long now) {
        List<RequestLogRow> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rows.add(new RequestLogRow(now + i, "req_" + Long.toHexString(0x8000_0000_0000_0000L | i * 7919L)
                    + "c0ffee", "api", "none", "chat", "gpt-4o-mini", "gpt-4o-mini", "primary", "3f2a9c1b", "shared", 1, 0,
                    200, null, 11, 7, 0, 0, 0.0000123, 51, null, null, null));
        }
        return rows;
    }

    private static long count(DataSource db) throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM request_log")) {
            r.next();
            return r.getLong(1);
        }
    }
}
