package dev.keypool.store;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * The request log's rows into PostgreSQL by {@code COPY request_log (...) FROM STDIN}: each row one line of COPY's
 * text format, the lines sent in chunks of one statement that writes all of them or none. Against batched INSERTs
 * (with {@code reWriteBatchedInserts}) it spares the driver 23 bound parameters per row and the server their parsing
 * and a multi-row statement to plan (docs/decisions.md, "The request log on PostgreSQL: COPY").
 */
public final class PostgresRequestLogWriter extends RequestLogWriter {

    static final String COPY = "COPY request_log (" + String.join(", ", COLUMNS) + ") FROM STDIN";

    /** Characters of text gathered before they are sent: bodies can make a beat's rows large. */
    private static final int CHUNK = 64 * 1024;
    private static final String NULL = "\\N";

    public PostgresRequestLogWriter(DataSource dataSource) {
        super(dataSource, RequestLogTime.BY_TS);
    }

    @Override
    void write(Connection connection, List<RequestLogRow> rows) throws SQLException {
        CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn(COPY);
        try {
            StringBuilder text = new StringBuilder(CHUNK + 1024);
            for (RequestLogRow row : rows) {
                line(text, row);
                if (text.length() >= CHUNK) {
                    send(copy, text);
                }
            }
            send(copy, text);
            copy.endCopy();
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
    }

    private static void send(CopyIn copy, StringBuilder text) throws SQLException {
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        copy.writeToCopy(bytes, 0, bytes.length);
        text.setLength(0);
    }

    /** One row in COPY's text format: columns tab-separated, {@code \N} for null, the line ended by a newline. */
    static void line(StringBuilder text, RequestLogRow row) {
        text.append(row.ts()).append('\t');
        string(text, row.requestId()).append('\t');
        string(text, row.source()).append('\t');
        string(text, row.tenant()).append('\t');
        string(text, row.api()).append('\t');
        string(text, row.model()).append('\t');
        string(text, row.servedModel()).append('\t');
        string(text, row.channel()).append('\t');
        string(text, row.keyFingerprint()).append('\t');
        string(text, row.pool()).append('\t');
        text.append(row.attempts()).append('\t');
        number(text, row.fallbackLevel()).append('\t');
        text.append(row.status()).append('\t');
        string(text, row.errorCode()).append('\t');
        text.append(row.promptTokens()).append('\t');
        text.append(row.completionTokens()).append('\t');
        text.append(row.cachedTokens()).append('\t');
        text.append(row.cacheWriteTokens()).append('\t');
        // Double.toString reads back as the same double, and PostgreSQL reads its exponent form
        text.append(row.costUsd()).append('\t');
        text.append(row.latencyMs()).append('\t');
        number(text, row.ttfbMs()).append('\t');
        string(text, row.requestBody()).append('\t');
        string(text, row.answerBody()).append('\n');
    }

    private static StringBuilder number(StringBuilder text, Number value) {
        return value == null ? text.append(NULL) : text.append(value.longValue());
    }

    /**
     * A text value with COPY's escapes: backslash, tab, newline and carriage return. A NUL character, which no
     * PostgreSQL text can hold, becomes U+FFFD, as a cut character of a capped body does: the row is kept.
     */
    private static StringBuilder string(StringBuilder text, String value) {
        if (value == null) {
            return text.append(NULL);
        }
        int plain = 0;
        for (int i = 0; i < value.length(); i++) {
            String escape = switch (value.charAt(i)) {
                case '\\' -> "\\\\";
                case '\t' -> "\\t";
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\0' -> "\uFFFD";
                default -> null;
            };
            if (escape != null) {
                text.append(value, plain, i).append(escape);
                plain = i + 1;
            }
        }
        return text.append(value, plain, value.length());
    }
}
