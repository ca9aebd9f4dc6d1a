-- One row per client request (API, batch line, async task): docs/operations.md, "The request log".
-- ts is epoch milliseconds in both databases, so that the SQL KeyPool runs is the same for SQLite and PostgreSQL;
-- in sqlite3: SELECT datetime(ts / 1000, 'unixepoch') ...; in psql: SELECT to_timestamp(ts / 1000.0) ...
-- The two types the databases name differently are Flyway placeholders, set per database by dev.keypool.store.Database.
CREATE TABLE request_log (
    id                ${row_id},
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
    cost_usd          ${double} NOT NULL,
    latency_ms        BIGINT  NOT NULL,
    ttfb_ms           BIGINT
);
CREATE INDEX request_log_ts ON request_log (ts);
CREATE INDEX request_log_tenant_ts ON request_log (tenant, ts);
