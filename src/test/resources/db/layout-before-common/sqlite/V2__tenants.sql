-- Tenants managed at runtime (docs/operations.md, "Tenants at runtime"): one row per tenant of keypool.yaml (origin
-- 'file', holding what the admin API laid over it) or created through the admin API (origin 'api'). Tokens are never
-- stored: token_hash is the SHA-256 of one in hex. A deleted tenant keeps its row (deleted = 1, no hashes), so that
-- every instance learns of it. Times are epoch milliseconds; in sqlite3: datetime(updated_at / 1000, 'unixepoch').
CREATE TABLE tenants (
    name           TEXT    PRIMARY KEY,
    origin         TEXT    NOT NULL,
    settings       TEXT    NOT NULL,
    token_hash     TEXT,
    previous_hash  TEXT,
    previous_until BIGINT,
    deleted        INTEGER NOT NULL,
    created_at     BIGINT  NOT NULL,
    updated_at     BIGINT  NOT NULL,
    version        BIGINT  NOT NULL
);
-- Moved by every write to tenants, in the same transaction: what the instances poll to notice a change.
CREATE TABLE tenants_revision (
    id       INTEGER PRIMARY KEY,
    revision BIGINT  NOT NULL
);
INSERT INTO tenants_revision (id, revision) VALUES (1, 0);
