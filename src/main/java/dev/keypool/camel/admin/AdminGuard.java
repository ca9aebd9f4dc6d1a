package dev.keypool.camel.admin;

import dev.keypool.auth.Bearer;
import dev.keypool.auth.Sha256;
import dev.keypool.gateway.GatewayError;
import org.apache.camel.Exchange;

/**
 * The admin token check of /admin/*. Only the token's SHA-256 is kept, and it is compared in constant time.
 * Without {@code admin.token} in keypool.yaml the admin API is off. A reload may change the token.
 */
public final class AdminGuard {

    private volatile byte[] tokenHash;

    public AdminGuard(String token) {
        replaceToken(token);
    }

    /** The token of a reloaded keypool.yaml; null turns the admin API off. */
    public void replaceToken(String token) {
        this.tokenHash = token == null ? null : Sha256.of(token);
    }

    public void check(Exchange exchange) {
        byte[] hash = tokenHash;
        checkEnabled(hash);
        String presented = Bearer.token(exchange.getMessage().getHeader(Bearer.HEADER, String.class)).orElse("");
        if (!Sha256.matches(hash, presented)) {
            throw new GatewayError(401, "authentication_error", "invalid_admin_token",
                    "Missing or wrong admin token (Authorization: Bearer <admin.token>)", null);
        }
    }

    /** For the dashboard page, which a browser loads without the token (the page then asks for it): 404 when off. */
    public void checkEnabled(Exchange exchange) {
        checkEnabled(tokenHash);
    }

    private static void checkEnabled(byte[] hash) {
        if (hash == null) {
            throw new GatewayError(404, "invalid_request_error", "admin_disabled",
                    "The admin API is off: set admin.token in keypool.yaml", null);
        }
    }
}
