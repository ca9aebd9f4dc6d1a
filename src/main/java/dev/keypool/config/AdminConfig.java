package dev.keypool.config;

/** The operator's token for {@code /admin/*}. */
public record AdminConfig(String token) {

    /** Without the token: it is a credential. */
    @Override
    public String toString() {
        return "AdminConfig[token=***]";
    }
}
