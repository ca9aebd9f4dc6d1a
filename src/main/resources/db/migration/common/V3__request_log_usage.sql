-- Prompt-cache writes (Anthropic's cache_creation_input_tokens; cached_tokens holds the cache reads), and the request
-- and answer text that requestLog.bodies: true keeps (capped by keypool.request-log.body-max-bytes; null when off).
ALTER TABLE request_log ADD COLUMN cache_write_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE request_log ADD COLUMN request_body TEXT;
ALTER TABLE request_log ADD COLUMN answer_body TEXT;
