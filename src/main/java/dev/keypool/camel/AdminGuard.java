package dev.keypool.camel;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import dev.keypool.gateway.GatewayError;
import org.apache.camel.Exchange;

/**
 * The admin token check of /admin/*. Only the token's SHA-256 is kept, and it is compared in constant time.
 * Without {@code admin.token} in keypool.yaml the admin API is off.
 */
public final class AdminGuard {

    private final byte[] tokenHash;

    public AdminGuard(String token) {
        this.tokenHash = token == null ? null : sha256(token);
    }

    public void check(Exchange exchange) {
        if (tokenHash == null) {
            throw new GatewayError(404, "invalid_request_error", "admin_disabled",
                    "The admin API is off: set admin.token in keypool.yaml", null);
        }
        String auth = exchange.getMessage().getHeader("Authorization", "", String.class);
        String presented = auth.startsWith("Bearer ") ? auth.substring("Bearer ".length()).trim() : "";
        if (!MessageDigest.isEqual(tokenHash, sha256(presented))) {
            throw new GatewayError(401, "authentication_error", "invalid_admin_token",
                    "Missing or wrong admin token (Authorization: Bearer <admin.token>)", null);
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
