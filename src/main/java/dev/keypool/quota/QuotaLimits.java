package dev.keypool.quota;

/**
 * One key's limits (design §6), null where there is none: requests and tokens per minute (sliding 60 s), requests
 * and tokens per calendar day, tokens per calendar month.
 */
public record QuotaLimits(Long rpm, Long tpm, Long rpd, Long tpd, Long tpmMonth) {

    public static final QuotaLimits NONE = new QuotaLimits(null, null, null, null, null);

    /** Whether a limit counts tokens: a call then counts its prompt's tokens (design §6). */
    public boolean countsTokens() {
        return tpm != null || tpd != null || tpmMonth != null;
    }
}
