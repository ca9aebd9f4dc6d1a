-- On SQLite the request log keeps one index beside its rowid, on ts (the usage queries, the spend read back at start,
-- the retention's DELETE). Every index is one more b-tree insert for each row, made on the gateway's own CPU, and
-- (tenant, ts) was the dearest: a page of GET /admin/requests?tenant= reads the log newest first by id until it has
-- its rows instead (docs/decisions.md, "The request log on SQLite: what a row costs"). PostgreSQL keeps it: there the
-- insert is the server's work.
DROP INDEX request_log_tenant_ts;
