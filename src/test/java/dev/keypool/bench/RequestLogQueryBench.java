package dev.keypool.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import dev.keypool.store.Database;
import dev.keypool.store.RequestLogReader;
import dev.keypool.store.RequestLogTime;
import dev.keypool.store.UsageReader;
import dev.keypool.store.UsageTotals;
import org.junit.jupiter.api.Test;

/**
 * Not part of the suite (its name matches none of Surefire's test patterns): what the request log's indexes buy the
 * admin API on SQLite, on a table as 30 days of retention leave it ({@code bench.rows}, 3,000,000 by default: about
 * 1.2 requests a second around the clock), the queries of {@code GET /admin/usage} and {@code GET /admin/requests}
 * (through {@link UsageReader} and {@link RequestLogReader}, the gateway's own SQL), the spend read back at start
 * ({@link UsageTotals}) and the retention's daily
 * {@code DELETE}, timed with each set of indexes in turn: the calling thread's CPU time, where SQLite runs (the median
 * of three runs each; the file stays in the page cache, as a gateway's recent rows do). Tenants: twenty sharing most
 * rows, one with a row in a thousand, one whose rows all lie in the first day.
 * {@code mvn -o test -Dtest=RequestLogQueryBench -Dsurefire.failIfNoSpecifiedTests=false}
 */
class RequestLogQueryBench {

    private static final int ROWS = Integer.getInteger("bench.rows", 3_000_000);
    private static final Duration RETENTION = Duration.ofDays(30);

    /** An index set: the indexes beside the table's rowid, by name and columns, and how the queries bound time. */
    private record Indexes(String name, Map<String, String> indexes, RequestLogTime time) {
    }

    @Test
    void admin_queries_by_index_set() throws Exception {
        Path dir = Files.createTempDirectory("keypool-query-bench-");
        try (Database db = Database.open(Optional.empty(), dir, 4, 5000)) {
            DataSource ds = db.dataSource();
            Instant end = Instant.parse("2026-12-01T00:00:00Z");
            Instant start = end.minus(RETENTION);
            long t0 = System.nanoTime();
            fill(ds, start, end);
            System.out.printf("%,d rows over %s in %.1f s, the file %,d MB%n", ROWS, RETENTION,
                    (System.nanoTime() - t0) / 1e9, Files.size(dir.resolve(Database.SQLITE_FILE)) >> 20);
            List<Indexes> sets = List.of(
                    new Indexes("ids from the time, no index, time by id (as shipped)", Map.of(), RequestLogTime.BY_ID),
                    new Indexes("ts only, time by ts (before)", Map.of("request_log_ts", "ts"), RequestLogTime.BY_TS),
                    new Indexes("ts and (tenant, ts), time by ts", Map.of(
                            "request_log_ts", "ts", "request_log_tenant_ts", "tenant, ts"), RequestLogTime.BY_TS),
                    new Indexes("none, time by ts", Map.of(), RequestLogTime.BY_TS));
            // SQLite runs on the calling thread: its CPU time is the query's cost, whatever else the machine runs
            ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
            for (Indexes set : sets) {
                UsageReader usage = new UsageReader(ds, set.time());
                RequestLogReader requests = new RequestLogReader(ds, set.time());
                Instant dayAgo = end.minus(Duration.ofDays(1));
                Instant tenDaysAgo = end.minus(Duration.ofDays(10));
                Map<String, Query> queries = new LinkedHashMap<>();
                queries.put("usage, 30 days by day and tenant", () -> usage.read(new UsageReader.Query(start, end,
                        UsageReader.GroupBy.TENANT, UsageReader.Interval.DAY)).buckets().size());
                queries.put("usage, last day by hour and model", () -> usage.read(new UsageReader.Query(dayAgo, end,
                        UsageReader.GroupBy.MODEL, UsageReader.Interval.HOUR)).buckets().size());
                queries.put("usage, last hour by hour and key", () -> usage.read(new UsageReader.Query(
                        end.minus(Duration.ofHours(1)), end, UsageReader.GroupBy.KEY, UsageReader.Interval.HOUR))
                        .buckets().size());
                queries.put("requests, newest 100", () -> page(requests, null, null, null, null));
                queries.put("requests, a tenant of 1 in 20, newest 100", () -> page(requests, "t3", null, null, null));
                queries.put("requests, a tenant of 1 in 1,000, newest 100", () -> page(requests, "rare", null, null, null));
                queries.put("requests, a tenant silent for 29 days, newest 100", () -> page(requests, "gone", null, null, null));
                queries.put("requests, a tenant of 1 in 20, a day 10 days ago", () -> page(requests, "t3", null,
                        tenDaysAgo.minus(Duration.ofDays(1)), tenDaysAgo));
                queries.put("requests, a day 10 days ago", () -> page(requests, null, null,
                        tenDaysAgo.minus(Duration.ofDays(1)), tenDaysAgo));
                queries.put("requests, status 500, newest 100", () -> page(requests, null, 500, null, null));
                UsageTotals totals = new UsageTotals(ds, set.time());
                queries.put("start: tenants' spend this month (1 day in)", () -> totals.tenantSpend(
                        Instant.parse("2026-11-02T12:00:00Z")).size());
                queries.put("start: tenants' spend this month (29 days in)", () -> totals.tenantSpend(
                        end.minusSeconds(1)).size());
                queries.put("retention, a day's rows deleted (rolled back)", () -> deleteDay(ds, start, set.time()));
                for (Map.Entry<String, String> index : set.indexes().entrySet()) {
                    execute(ds, "CREATE INDEX " + index.getKey() + " ON request_log (" + index.getValue() + ")");
                }
                System.out.println("== indexes: " + set.name());
                for (Map.Entry<String, Query> query : queries.entrySet()) {
                    List<Long> ms = new ArrayList<>();
                    long found = 0;
                    for (int run = 0; run < 3; run++) {
                        long q0 = cpu.getCurrentThreadCpuTime();
                        found = query.getValue().run();
                        ms.add((cpu.getCurrentThreadCpuTime() - q0) / 1_000_000);
                    }
                    ms.sort(null);
                    System.out.printf("  %-52s %7d ms CPU (%d-%d), %d rows%n", query.getKey(), ms.get(1), ms.get(0), ms.get(2),
                            found);
                }
                for (String index : set.indexes().keySet()) {
                    execute(ds, "DROP INDEX " + index);
                }
            }
            // what migration V7 costs an existing database of this size, once (rolled back)
            String migration = new String(RequestLogQueryBench.class.getResourceAsStream(
                    "/db/migration/sqlite/V7__request_log_ids_from_time.sql").readAllBytes(), StandardCharsets.UTF_8)
                    .replaceAll("(?m)--.*$", "");
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                long m0 = cpu.getCurrentThreadCpuTime();
                long w0 = System.nanoTime();
                for (String statement : migration.split(";")) {
                    if (!statement.isBlank()) {
                        s.execute(statement);
                    }
                }
                System.out.printf("  %-52s %7d ms CPU, %d ms wall%n", "migration V7 (rolled back)",
                        (cpu.getCurrentThreadCpuTime() - m0) / 1_000_000, (System.nanoTime() - w0) / 1_000_000);
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    private interface Query {
        long run() throws SQLException;
    }

    private static long page(RequestLogReader reader, String tenant, Integer status, Instant from, Instant to)
            throws SQLException {
        return reader.page(new RequestLogReader.Query(tenant, status, null, from, to, 100, null)).rows().size();
    }

    private static long deleteDay(DataSource ds, Instant start, RequestLogTime time) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement delete = c.prepareStatement("DELETE FROM request_log WHERE " + time.before())) {
                delete.setLong(1, time.bound(start.plus(Duration.ofDays(1)).toEpochMilli()));
                return delete.executeUpdate();
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    /**
     * ROWS rows evenly over [start, end), made by SQLite itself, each id made from its time as the writer makes it
     * (one row a millisecond at most at this rate: the first id of its millisecond).
     */
    private static void fill(DataSource ds, Instant start, Instant end) throws SQLException {
        long from = start.toEpochMilli();
        long span = end.toEpochMilli() - from;
        long firstDay = ROWS / 30;
        try (Connection c = ds.getConnection(); PreparedStatement insert = c.prepareStatement(
                "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1) "
                        + "INSERT INTO request_log (id, ts, request_id, source, tenant, api, model, served_model, channel, "
                        + "key_fingerprint, pool, attempts, fallback_level, status, error_code, prompt_tokens, "
                        + "completion_tokens, cached_tokens, cost_usd, latency_ms, ttfb_ms) "
                        + "SELECT (? + i * ? / ?) << 20, ? + i * ? / ?, printf('req_%016x%016x', random(), random()), 'api', "
                        + "CASE WHEN i % 1000 = 7 THEN 'rare' WHEN i < ? AND i % 100 = 3 THEN 'gone' "
                        + "ELSE 't' || (abs(random()) % 20) END, 'chat', 'model-' || (i % 5), 'model-' || (i % 5), "
                        + "'channel-' || (i % 4), printf('%016x', i % 40), 'shared', 1, 0, "
                        + "CASE WHEN i % 97 = 0 THEN 500 WHEN i % 89 = 0 THEN 429 ELSE 200 END, NULL, "
                        + "100 + i % 900, 20 + i % 300, 0, 0.00001 * (i % 50), 40 + i % 2000, NULL FROM n")) {
            insert.setLong(1, ROWS);
            for (int p = 2; p <= 5; p += 3) {
                insert.setLong(p, from);
                insert.setLong(p + 1, span);
                insert.setLong(p + 2, ROWS);
            }
            insert.setLong(8, firstDay);
            insert.executeUpdate();
        }
    }

    private static void execute(DataSource ds, String... statements) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
