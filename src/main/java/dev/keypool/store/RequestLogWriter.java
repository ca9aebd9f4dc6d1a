package dev.keypool.store;

import java.sql.SQLException;
import java.util.List;

/** Writes the request log's rows, a batch at a time, in the way the database takes them cheapest. */
public interface RequestLogWriter {

    /** The request_log columns every writer fills, in the order of {@link RequestLogRow}'s components. */
    List<String> COLUMNS = List.of("ts", "request_id", "source", "tenant", "api", "model", "served_model", "channel",
            "key_fingerprint", "pool", "attempts", "fallback_level", "status", "error_code", "prompt_tokens",
            "completion_tokens", "cached_tokens", "cache_write_tokens", "cost_usd", "latency_ms", "ttfb_ms",
            "request_body", "answer_body");

    /** Writes every row, or none of them when the database refuses one (the exception says why). */
    void insert(List<RequestLogRow> rows) throws SQLException;

    /** PostgreSQL's COPY, else batched INSERTs. */
    static RequestLogWriter of(Database database) {
        return database.kind().equals(Database.POSTGRESQL)
                ? new PostgresRequestLogWriter(database.dataSource())
                : new JdbcRequestLogWriter(database.dataSource());
    }
}
