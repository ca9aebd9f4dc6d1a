package dev.keypool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

/**
 * Pages through the request log, newest first, for {@code GET /admin/requests}. The cursor is the id of the last row of
 * the previous page, so a page stays right while rows are being written. The same SQL runs on SQLite and PostgreSQL but
 * for the bounds of time ({@link RequestLogTime}); on SQLite ids are in time order, so newest first is by time.
 */
public final class RequestLogReader {

    /** The most rows one page may ask for. */
    public static final int MAX_LIMIT = 1000;

    /** Which rows: every field null is "any"; {@code from} inclusive, {@code to} exclusive; {@code before} a cursor. */
    public record Query(String tenant, Integer status, String model, Instant from, Instant to, int limit, Long before) {
    }

    /** A page of rows and the cursor of the next one (null when this was the last). */
    public record Page(List<Row> rows, Long nextCursor) {
    }

    /** A row with its id, as the cursor reads it. */
    public record Row(long id, RequestLogRow row) {
    }

    /** Every column but the bodies, which a page of a thousand rows should not drag along. */
    private static final String COLUMNS = "id, ts, request_id, source, tenant, api, model, served_model, channel, "
            + "key_fingerprint, pool, attempts, fallback_level, status, error_code, prompt_tokens, completion_tokens, "
            + "cached_tokens, cache_write_tokens, cost_usd, latency_ms, ttfb_ms";

    private final DataSource dataSource;
    private final RequestLogTime time;

    public RequestLogReader(DataSource dataSource, RequestLogTime time) {
        this.dataSource = dataSource;
        this.time = time;
    }

    public Page page(Query query) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM request_log WHERE 1 = 1");
        List<Object> parameters = new ArrayList<>();
        where(sql, parameters, "tenant = ?", query.tenant());
        where(sql, parameters, "status = ?", query.status());
        where(sql, parameters, "model = ?", query.model());
        where(sql, parameters, time.atOrAfter(), query.from() == null ? null : time.bound(query.from().toEpochMilli()));
        where(sql, parameters, time.before(), query.to() == null ? null : time.bound(query.to().toEpochMilli()));
        where(sql, parameters, "id < ?", query.before());
        sql.append(" ORDER BY id DESC LIMIT ?");
        // one more than asked: whether there is a next page
        parameters.add(query.limit() + 1);
        List<Row> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < parameters.size(); i++) {
                s.setObject(i + 1, parameters.get(i));
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    rows.add(new Row(r.getLong("id"), row(r)));
                }
            }
        }
        if (rows.size() <= query.limit()) {
            return new Page(rows, null);
        }
        List<Row> page = rows.subList(0, query.limit());
        return new Page(List.copyOf(page), page.get(page.size() - 1).id());
    }

    private static void where(StringBuilder sql, List<Object> parameters, String condition, Object value) {
        if (value != null) {
            sql.append(" AND ").append(condition);
            parameters.add(value);
        }
    }

    private static RequestLogRow row(ResultSet r) throws SQLException {
        return new RequestLogRow(r.getLong("ts"), r.getString("request_id"), r.getString("source"),
                r.getString("tenant"), r.getString("api"), r.getString("model"), r.getString("served_model"),
                r.getString("channel"), r.getString("key_fingerprint"), r.getString("pool"), r.getInt("attempts"),
                integer(r, "fallback_level"), r.getInt("status"), r.getString("error_code"), r.getLong("prompt_tokens"),
                r.getLong("completion_tokens"), r.getLong("cached_tokens"), r.getLong("cache_write_tokens"),
                r.getDouble("cost_usd"), r.getLong("latency_ms"), longOrNull(r, "ttfb_ms"), null, null);
    }

    private static Integer integer(ResultSet r, String column) throws SQLException {
        int value = r.getInt(column);
        return r.wasNull() ? null : value;
    }

    private static Long longOrNull(ResultSet r, String column) throws SQLException {
        long value = r.getLong(column);
        return r.wasNull() ? null : value;
    }
}
