package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

/**
 * What the request log says was spent, read once at start so that figures kept in memory go on where they were
 * before a restart: each tenant's spend of the current UTC day and month (its budget), and the tokens and cost per
 * channel, key and upstream model over the rows the log keeps ({@code database.retention}). The same SQL on SQLite
 * and PostgreSQL but for the bounds of time ({@link RequestLogTime}).
 */
public final class UsageTotals {

    /** One tenant's spend, in USD, since the start of the UTC day and of the UTC month. */
    public record TenantSpend(double today, double thisMonth) {
    }

    /** The answered calls of one key of one channel for one upstream model. */
    public record KeyCost(String channel, String keyFingerprint, String model, long promptTokens,
                          long completionTokens, double costUsd) {
    }

    private final DataSource dataSource;
    private final RequestLogTime time;

    public UsageTotals(DataSource dataSource, RequestLogTime time) {
        this.dataSource = dataSource;
        this.time = time;
    }

    /** Every tenant that spent anything this UTC month, by name. */
    public Map<String, TenantSpend> tenantSpend(Instant now) {
        LocalDate today = now.atOffset(ZoneOffset.UTC).toLocalDate();
        long dayStart = today.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        long monthStart = today.withDayOfMonth(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        String sql = "SELECT tenant, SUM(CASE WHEN ts >= ? THEN cost_usd ELSE 0 END) AS today, SUM(cost_usd) AS month"
                + " FROM request_log WHERE " + time.atOrAfter() + " AND " + time.before()
                + " AND cost_usd > 0 GROUP BY tenant";
        Map<String, TenantSpend> spend = new LinkedHashMap<>();
        query(sql, r -> spend.put(r.getString("tenant"), new TenantSpend(r.getDouble("today"), r.getDouble("month"))),
                dayStart, time.bound(monthStart), time.bound(now.toEpochMilli() + 1));
        return spend;
    }

    /** The rows served by a channel, summed per channel, key and upstream model. */
    public List<KeyCost> keyCosts() {
        String sql = "SELECT channel, key_fingerprint, served_model, SUM(prompt_tokens) AS prompt,"
                + " SUM(completion_tokens) AS completion, SUM(cost_usd) AS cost FROM request_log"
                + " WHERE channel IS NOT NULL AND key_fingerprint IS NOT NULL GROUP BY 1, 2, 3";
        List<KeyCost> costs = new ArrayList<>();
        query(sql, r -> costs.add(new KeyCost(r.getString("channel"), r.getString("key_fingerprint"),
                r.getString("served_model"), r.getLong("prompt"), r.getLong("completion"), r.getDouble("cost"))));
        return costs;
    }

    private interface RowReader {
        void read(ResultSet row) throws SQLException;
    }

    private void query(String sql, RowReader reader, long... parameters) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setLong(i + 1, parameters[i]);
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    reader.read(r);
                }
            }
        } catch (SQLException e) {
            // the class only: a driver's message may quote the URL
            throw new IllegalStateException("cannot read the request log: " + e.getClass().getSimpleName(), e);
        }
    }
}
