package dev.keypool.gateway;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads one text field of a {@code multipart/form-data} body (RFC 7578) without copying or decoding the rest, so
 * that the body can be forwarded byte for byte: the gateway only needs the {@code model} and, for a rename, where
 * its value lies.
 */
public final class MultipartForm {

    /** Where a field's value lies in the body: bytes {@code [start, end)}. */
    public record Field(String value, int start, int end) {
    }

    private final byte[] body;
    private final byte[] delimiter;

    private MultipartForm(byte[] body, String boundary) {
        this.body = body;
        this.delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The form of {@code body} sent with {@code contentType}; empty when that is not multipart/form-data with a boundary. */
    public static Optional<MultipartForm> of(byte[] body, String contentType) {
        return boundary(contentType).map(b -> new MultipartForm(body, b));
    }

    /** The boundary parameter of a multipart/form-data content type. */
    static Optional<String> boundary(String contentType) {
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
            return Optional.empty();
        }
        for (String param : contentType.split(";")) {
            String p = param.strip();
            if (p.toLowerCase(Locale.ROOT).startsWith("boundary=")) {
                String b = p.substring("boundary=".length()).strip();
                if (b.length() >= 2 && b.startsWith("\"") && b.endsWith("\"")) {
                    b = b.substring(1, b.length() - 1);
                }
                return b.isEmpty() ? Optional.empty() : Optional.of(b);
            }
        }
        return Optional.empty();
    }

    /** The first part named {@code name} that is not a file, as text. */
    public Optional<Field> field(String name) {
        int at = indexOf(delimiter, 0);
        while (at >= 0) {
            int headersStart = lineEnd(at + delimiter.length);
            if (headersStart < 0) {
                return Optional.empty();   // the closing delimiter "--boundary--", or a cut body
            }
            int headersEnd = indexOf(CRLF_CRLF, headersStart);
            if (headersEnd < 0) {
                return Optional.empty();
            }
            int valueStart = headersEnd + CRLF_CRLF.length;
            int next = indexOf(delimiter, valueStart);
            if (next < 0) {
                return Optional.empty();
            }
            // the value ends with the CRLF before the next delimiter
            int valueEnd = next >= 2 && body[next - 2] == '\r' && body[next - 1] == '\n' ? next - 2 : next;
            String headers = new String(body, headersStart, headersEnd - headersStart, StandardCharsets.UTF_8);
            if (isField(headers, name) && valueEnd >= valueStart) {
                return Optional.of(new Field(new String(body, valueStart, valueEnd - valueStart, StandardCharsets.UTF_8),
                        valueStart, valueEnd));
            }
            at = next;
        }
        return Optional.empty();
    }

    /** The body with one field's value replaced, everything else as it was. */
    public byte[] replace(Field field, String value) {
        byte[] replacement = value.getBytes(StandardCharsets.UTF_8);
        byte[] copy = new byte[body.length - (field.end() - field.start()) + replacement.length];
        System.arraycopy(body, 0, copy, 0, field.start());
        System.arraycopy(replacement, 0, copy, field.start(), replacement.length);
        System.arraycopy(body, field.end(), copy, field.start() + replacement.length, body.length - field.end());
        return copy;
    }

    private static final byte[] CRLF_CRLF = {'\r', '\n', '\r', '\n'};

    private static boolean isField(String headers, String name) {
        for (String line : headers.split("\r\n")) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-disposition:") && lower.contains("form-data")) {
                return !lower.contains("filename") && (line.contains("name=\"" + name + "\"") || line.matches("(?i).*;\\s*name=" + name + "\\s*(;.*)?$"));
            }
        }
        return false;
    }

    /** The index after the CRLF that ends the delimiter line starting at {@code from}; -1 for the closing one. */
    private int lineEnd(int from) {
        if (from + 1 < body.length && body[from] == '-' && body[from + 1] == '-') {
            return -1;
        }
        int crlf = indexOf(new byte[] {'\r', '\n'}, from);
        return crlf < 0 ? -1 : crlf + 2;
    }

    private int indexOf(byte[] needle, int from) {
        outer:
        for (int i = Math.max(0, from); i <= body.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (body[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
