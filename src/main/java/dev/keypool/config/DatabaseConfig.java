package dev.keypool.config;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The control plane's store ({@code database:}): SQLite in {@code state.dir} when {@code url} is left out, the
 * PostgreSQL server it names otherwise; and how long request-log rows are kept.
 */
public record DatabaseConfig(Optional<String> url, Duration retention) {

    /** A file without a {@code database} block: SQLite in state.dir, rows kept 30 days. */
    public static final DatabaseConfig DEFAULT = new DatabaseConfig(Optional.empty(), Duration.ofDays(30));

    public DatabaseConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(retention, "retention");
    }

    /** A PostgreSQL server: its JDBC URL without credentials, and the user and password apart (null: none given). */
    public record Postgres(String jdbcUrl, String user, String password) {
        @Override
        public String toString() {
            return "Postgres[" + jdbcUrl + ", user=" + user + "]";
        }
    }

    /**
     * The PostgreSQL server, from either form an operator has at hand: {@code jdbc:postgresql://…} or the
     * {@code postgresql://user:password@host:port/db} that LiteLLM and most hosting panels print. The credentials
     * are taken out of the URL, so that no log line or driver message that quotes the URL can show the password.
     */
    public Optional<Postgres> postgres() {
        return url.map(DatabaseConfig::parse);
    }

    static Postgres parse(String url) {
        URI uri = URI.create(url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url);
        String user = null;
        String password = null;
        if (uri.getRawUserInfo() != null) {
            String info = uri.getRawUserInfo();
            int colon = info.indexOf(':');
            user = decode(colon < 0 ? info : info.substring(0, colon));
            password = colon < 0 ? null : decode(info.substring(colon + 1));
        }
        StringBuilder query = new StringBuilder();
        if (uri.getRawQuery() != null) {
            for (String parameter : uri.getRawQuery().split("&")) {
                if (parameter.startsWith("user=")) {
                    user = decode(parameter.substring("user=".length()));
                } else if (parameter.startsWith("password=")) {
                    password = decode(parameter.substring("password=".length()));
                } else if (!parameter.isEmpty()) {
                    query.append(query.isEmpty() ? "" : "&").append(parameter);
                }
            }
        }
        StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getHost());
        if (uri.getPort() > 0) {
            jdbc.append(':').append(uri.getPort());
        }
        jdbc.append(uri.getRawPath() == null ? "" : uri.getRawPath());
        if (!query.isEmpty()) {
            jdbc.append('?').append(query);
        }
        return new Postgres(jdbc.toString(), user, password);
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    /** Whether {@code url} reads as a PostgreSQL URL in one of the two forms. */
    static boolean isPostgres(String url) {
        if (url.startsWith("jdbc:postgresql://")) {
            return true;
        }
        if (!url.startsWith("postgresql://") && !url.startsWith("postgres://")) {
            return false;
        }
        try {
            return URI.create(url).getHost() != null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Without the password the URL may carry. */
    @Override
    public String toString() {
        return "DatabaseConfig[url=" + url.map(u -> "(set)").orElse("(SQLite in state.dir)") + ", retention=" + retention + "]";
    }
}
