package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import javax.sql.DataSource;

/**
 * The request log summed per group and time bucket, for {@code GET /admin/usage}: requests, tokens, cost and errors.
 * The bucket is computed in SQL as the stored epoch milliseconds divided by the interval's length, an integer division
 * that SQLite and PostgreSQL do alike on BIGINT, so one statement serves both databases (but for the bounds of time,
 * {@link RequestLogTime}) and the buckets are UTC hours and days without any dialect's date functions.
 */
public final class UsageReader {

    /** The most buckets of time one query may span ({@code to - from} over the interval). */
    public static final int MAX_INTERVALS = 1000;
    /** The most (group, bucket) rows one answer holds; beyond, the answer says it is truncated. */
    public static final int MAX_ROWS = 10_000;

    /** What the rows are grouped by: a parameter name and its column. */
    public enum GroupBy {
        TENANT("tenant"), MODEL("model"), CHANNEL("channel"), KEY("key_fingerprint");

        private final String column;

        GroupBy(String column) {
            this.column = column;
        }

        public String parameter() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<GroupBy> named(String name) {
            for (GroupBy g : values()) {
                if (g.parameter().equals(name)) {
                    return Optional.of(g);
                }
            }
            return Optional.empty();
        }
    }

    /** The length of a bucket: UTC hours or days. */
    public enum Interval {
        HOUR(Duration.ofHours(1)), DAY(Duration.ofDays(1));

        private final Duration length;

        Interval(Duration length) {
            this.length = length;
        }

        public Duration length() {
            return length;
        }

        public String parameter() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Interval> named(String name) {
            for (Interval i : values()) {
                if (i.parameter().equals(name)) {
                    return Optional.of(i);
                }
            }
            return Optional.empty();
        }

        /** How many buckets {@code from} to {@code to} touch. */
        public long buckets(Instant from, Instant to) {
            long ms = length.toMillis();
            return Math.floorDiv(to.toEpochMilli() - 1, ms) - Math.floorDiv(from.toEpochMilli(), ms) + 1;
        }
    }

    /** Rows with {@code from <= ts < to}. */
    public record Query(Instant from, Instant to, GroupBy groupBy, Interval interval) {
    }

    /**
     * One group's figures in one bucket.
     *
     * @param group  the tenant, model, channel or key fingerprint; null for requests without one (no channel served)
     * @param errors requests answered with a status of 400 or more
     */
    public record Bucket(Instant start, String group, long requests, long promptTokens, long completionTokens,
                         long cachedTokens, long cacheWriteTokens, double costUsd, long errors) {
    }

    /** The buckets in time order, groups in name order within one; {@code truncated} when more than MAX_ROWS matched. */
    public record Usage(List<Bucket> buckets, boolean truncated) {
    }

    private final DataSource dataSource;
    private final RequestLogTime time;

    public UsageReader(DataSource dataSource, RequestLogTime time) {
        this.dataSource = dataSource;
        this.time = time;
    }

    public Usage read(Query query) throws SQLException {
        long ms = query.interval().length().toMillis();
        String sql = "SELECT " + query.groupBy().column + " AS grp, ts / ? AS bucket, COUNT(*) AS requests,"
                + " SUM(prompt_tokens) AS prompt, SUM(completion_tokens) AS completion, SUM(cached_tokens) AS cached,"
                + " SUM(cache_write_tokens) AS cache_write, SUM(cost_usd) AS cost,"
                + " SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END) AS errors"
                + " FROM request_log WHERE " + time.atOrAfter() + " AND " + time.before()
                + " GROUP BY 1, 2 ORDER BY 2, 1 LIMIT ?";
        List<Bucket> buckets = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setLong(1, ms);
            s.setLong(2, time.bound(query.from().toEpochMilli()));
            s.setLong(3, time.bound(query.to().toEpochMilli()));
            s.setInt(4, MAX_ROWS + 1);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    buckets.add(new Bucket(Instant.ofEpochMilli(r.getLong("bucket") * ms), r.getString("grp"),
                            r.getLong("requests"), r.getLong("prompt"), r.getLong("completion"), r.getLong("cached"),
                            r.getLong("cache_write"), r.getDouble("cost"), r.getLong("errors")));
                }
            }
        }
        if (buckets.size() > MAX_ROWS) {
            return new Usage(List.copyOf(buckets.subList(0, MAX_ROWS)), true);
        }
        return new Usage(buckets, false);
    }
}
