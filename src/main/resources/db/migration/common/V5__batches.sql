-- Batches, their lines' results, files and async tasks, kept here when database.url names the PostgreSQL server that
-- several instances share (design §12, docs/operations.md "Running several instances"); with SQLite they stay in
-- state.dir/batch, and these tables stay empty. Times are epoch milliseconds. owner is the tenant, '' without tenants.
-- A batch or task not over is worked by the instance named in lease_owner until lease_until, renewed by its heartbeat;
-- once run out, any instance may claim it.
CREATE TABLE batch_jobs (
    id          TEXT    PRIMARY KEY,
    owner       TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    inbox       INTEGER NOT NULL,
    input_file  TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    ended_at    BIGINT,
    body        TEXT    NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT
);
CREATE INDEX batch_jobs_owner ON batch_jobs (owner, created_at);
CREATE INDEX batch_jobs_status ON batch_jobs (status);
-- One row per line with its result, the output or error line as JSON: the primary key makes a second result of a
-- line (a line sent twice) impossible to record.
CREATE TABLE batch_results (
    batch_id TEXT    NOT NULL,
    line     INTEGER NOT NULL,
    ok       INTEGER NOT NULL,
    record   TEXT    NOT NULL,
    PRIMARY KEY (batch_id, line)
);
-- Files of the Batch API with their contents; object is the OpenAI file object as JSON.
CREATE TABLE batch_files (
    id         TEXT     PRIMARY KEY,
    owner      TEXT     NOT NULL,
    object     TEXT     NOT NULL,
    bytes      BIGINT   NOT NULL,
    expires_at BIGINT   NOT NULL,
    content    ${bytes} NOT NULL
);
CREATE INDEX batch_files_owner ON batch_files (owner);
CREATE INDEX batch_files_expires ON batch_files (expires_at);
-- Async tasks: the request until done, then the answer ({"status_code","body"} as JSON).
CREATE TABLE batch_tasks (
    id          TEXT     PRIMARY KEY,
    owner       TEXT     NOT NULL,
    endpoint    TEXT     NOT NULL,
    api         TEXT     NOT NULL,
    status      TEXT     NOT NULL,
    created_at  BIGINT   NOT NULL,
    finished_at BIGINT,
    request     ${bytes},
    response    TEXT,
    bytes       BIGINT   NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT
);
CREATE INDEX batch_tasks_owner ON batch_tasks (owner, finished_at);
CREATE INDEX batch_tasks_lease ON batch_tasks (finished_at, lease_until);
