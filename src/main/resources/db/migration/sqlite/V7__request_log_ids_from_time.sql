-- On SQLite a request-log row's id is made from its time: ts << 20 plus its place within its millisecond (the writer,
-- dev.keypool.store.TimeIds). The table's own b-tree is then in time order and a range of time is a range of ids, so
-- the index on ts goes: it cost every row a second b-tree insert on the gateway's CPU (docs/decisions.md, "The request
-- log on SQLite: what a row costs"). The rows written before get such ids too, in their former order within a
-- millisecond; the table is made again with them, in time order. PostgreSQL keeps its sequence and its index on ts.
CREATE TABLE request_log_by_time (
    id                INTEGER PRIMARY KEY,
    ts                BIGINT  NOT NULL,
    request_id        TEXT    NOT NULL,
    source            TEXT    NOT NULL,
    tenant            TEXT    NOT NULL,
    api               TEXT,
    model             TEXT,
    served_model      TEXT,
    channel           TEXT,
    key_fingerprint   TEXT,
    pool              TEXT,
    attempts          INTEGER NOT NULL,
    fallback_level    INTEGER,
    status            INTEGER NOT NULL,
    error_code        TEXT,
    prompt_tokens     BIGINT  NOT NULL,
    completion_tokens BIGINT  NOT NULL,
    cached_tokens     BIGINT  NOT NULL,
    cost_usd          REAL    NOT NULL,
    latency_ms        BIGINT  NOT NULL,
    ttfb_ms           BIGINT,
    cache_write_tokens BIGINT NOT NULL DEFAULT 0,
    request_body      TEXT,
    answer_body       TEXT
);
INSERT INTO request_log_by_time
SELECT (ts << 20) + ROW_NUMBER() OVER (PARTITION BY ts ORDER BY id) - 1, ts, request_id, source, tenant, api, model,
       served_model, channel, key_fingerprint, pool, attempts, fallback_level, status, error_code, prompt_tokens,
       completion_tokens, cached_tokens, cost_usd, latency_ms, ttfb_ms, cache_write_tokens, request_body, answer_body
FROM request_log
ORDER BY ts, id;
DROP TABLE request_log;
ALTER TABLE request_log_by_time RENAME TO request_log;
