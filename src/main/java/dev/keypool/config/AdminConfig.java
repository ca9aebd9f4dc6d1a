package dev.keypool.config;

/**
 * The operator's token for {@code /admin/*}, and whether keypool.yaml is reloaded by itself when it changes on disk
 * ({@code watchConfig}, default false).
 */
public record AdminConfig(String token, boolean watchConfig) {

    /** A token, and no watching of the file. */
    public AdminConfig(String token) {
        this(token, false);
    }

    /** Without the token: it is a credential. */
    @Override
    public String toString() {
        return "AdminConfig[token=***, watchConfig=" + watchConfig + "]";
    }
}
