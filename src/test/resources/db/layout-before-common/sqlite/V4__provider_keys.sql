-- Provider keys added through POST /admin/channels/{name}/keys (docs/operations.md, "Adding keys at runtime").
-- secret is AES-256-GCM ciphertext and tag under KEYPOOL_MASTER_KEY, iv its random 12-byte nonce, channel and
-- fingerprint the associated data: a row copied to another channel or key does not decrypt. created_at is epoch ms.
CREATE TABLE provider_keys (
    channel     TEXT   NOT NULL,
    fingerprint TEXT   NOT NULL,
    label       TEXT,
    iv          BLOB   NOT NULL,
    secret      BLOB   NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (channel, fingerprint)
);
