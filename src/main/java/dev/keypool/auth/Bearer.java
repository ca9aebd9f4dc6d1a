package dev.keypool.auth;

import java.util.Optional;

/** The {@code Authorization: Bearer <token>} scheme, both ways. */
public final class Bearer {

    /** The header the scheme is sent in. */
    public static final String HEADER = "Authorization";

    private static final String PREFIX = "Bearer ";

    private Bearer() {
    }

    /** The header value that presents {@code token}. */
    public static String header(String token) {
        return PREFIX + token;
    }

    /** The token of an {@code Authorization} header value; empty when absent, blank or of another scheme. */
    public static Optional<String> token(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return Optional.empty();
        }
        String token = authorization.substring(PREFIX.length()).trim();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }
}
