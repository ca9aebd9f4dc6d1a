package dev.keypool.gateway;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one text field of a {@code multipart/form-data} body (RFC 7578) without copying or decoding the rest, so
 * that the body can be forwarded byte for byte: the gateway only needs the {@code model} and, for a rename, where
 * its value lies.
 */
public final class MultipartForm {

    /** Where a field's value lies in the body: bytes {@code [start, end)}. */
    public record Field(String value, int start, int end) {
    }

    /** RFC 2046: a boundary is 1 to 70 characters. */
    public static final int MAX_BOUNDARY = 70;

    private final ByteBuffer body;
    private final int delimiterLength;
    private final ByteSearch delimiter;

    private MultipartForm(ByteBuffer body, String boundary) {
        this.body = body;
        byte[] bytes = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        this.delimiterLength = bytes.length;
        this.delimiter = new ByteSearch(bytes);
    }

    /**
     * The form of {@code body} sent with {@code contentType}; empty when that is not multipart/form-data with a boundary.
     * A {@link GatewayError} (400) for a boundary longer than RFC 2046 allows.
     */
    public static Optional<MultipartForm> of(byte[] body, String contentType) {
        return of(ByteBuffer.wrap(body), contentType);
    }

    /** The same for a body in a buffer, e.g. an upload's file mapped into memory rather than read into the heap. */
    public static Optional<MultipartForm> of(ByteBuffer body, String contentType) {
        return boundary(contentType).map(b -> new MultipartForm(body, b));
    }

    /**
     * The boundary parameter of a multipart/form-data content type; a {@link GatewayError} (400) when it is longer than
     * RFC 2046's 70 characters, which also keeps the cost of looking for it small.
     */
    public static Optional<String> boundary(String contentType) {
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
                if (b.length() > MAX_BOUNDARY) {
                    throw GatewayError.boundaryTooLong(b.length());
                }
                return b.isEmpty() ? Optional.empty() : Optional.of(b);
            }
        }
        return Optional.empty();
    }

    /** The first part named {@code name} that is not a file, as text. */
    public Optional<Field> field(String name) {
        return part(headers -> isField(headers, name)).map(p -> new Field(
                new String(bytes(p.start(), p.end()), StandardCharsets.UTF_8), p.start(), p.end()));
    }

    /** A file part of the form: its filename and its bytes. */
    public record FilePart(String filename, byte[] content) {
    }

    /**
     * The first part named {@code name} as a file ({@code Content-Disposition: form-data; name="file"; filename="…"}),
     * with or without a filename.
     */
    public Optional<FilePart> file(String name) {
        return fileRange(name).map(f -> new FilePart(f.filename(), bytes(f.start(), f.end())));
    }

    /** A file part of the form: its filename and where its bytes lie in the body, {@code [start, end)}. */
    public record FileRange(String filename, int start, int end) {
    }

    /** {@link #file}, without copying the bytes. */
    public Optional<FileRange> fileRange(String name) {
        String[] filename = new String[1];
        return part(headers -> (filename[0] = fileName(headers, name)) != null)
                .map(p -> new FileRange(filename[0], p.start(), p.end()));
    }

    private byte[] bytes(int start, int end) {
        byte[] copy = new byte[end - start];
        body.get(start, copy);
        return copy;
    }

    private record Part(int start, int end) {
    }

    /** The value bytes of the first part whose headers {@code matches}. */
    private Optional<Part> part(Predicate<String> matches) {
        int at = delimiter.in(body, 0);
        while (at >= 0) {
            int headersStart = lineEnd(at + delimiterLength);
            if (headersStart < 0) {
                return Optional.empty();   // the closing delimiter "--boundary--", or a cut body
            }
            int headersEnd = CRLF_CRLF.in(body, headersStart);
            if (headersEnd < 0) {
                return Optional.empty();
            }
            int valueStart = headersEnd + 4;
            int next = delimiter.in(body, valueStart);
            if (next < 0) {
                return Optional.empty();
            }
            // the value ends with the CRLF before the next delimiter
            int valueEnd = next >= 2 && body.get(next - 2) == '\r' && body.get(next - 1) == '\n' ? next - 2 : next;
            String headers = new String(bytes(headersStart, headersEnd), StandardCharsets.UTF_8);
            if (valueEnd >= valueStart && matches.test(headers)) {
                return Optional.of(new Part(valueStart, valueEnd));
            }
            at = next;
        }
        return Optional.empty();
    }

    private static final Pattern PART_NAME = Pattern.compile(";\\s*name=\"?([^\";]*)\"?");
    private static final Pattern FILE_NAME = Pattern.compile(";\\s*filename=\"?([^\";]*)\"?");

    /** The filename of the part named {@code name} ("" when it gives none); null when the headers are another part's. */
    private static String fileName(String headers, String name) {
        for (String line : headers.split("\r\n")) {
            if (!line.toLowerCase(Locale.ROOT).startsWith("content-disposition:")) {
                continue;
            }
            Matcher named = PART_NAME.matcher(line);
            Matcher file = FILE_NAME.matcher(line);
            if (named.find() && named.group(1).equals(name)) {
                // a client may send a file's bytes without naming them
                return file.find() ? file.group(1) : "";
            }
        }
        return null;
    }

    /** The body with one field's value replaced, everything else as it was. */
    public byte[] replace(Field field, String value) {
        byte[] replacement = value.getBytes(StandardCharsets.UTF_8);
        int length = body.limit();
        byte[] copy = new byte[length - (field.end() - field.start()) + replacement.length];
        body.get(0, copy, 0, field.start());
        System.arraycopy(replacement, 0, copy, field.start(), replacement.length);
        body.get(field.end(), copy, field.start() + replacement.length, length - field.end());
        return copy;
    }

    private static final ByteSearch CRLF_CRLF = new ByteSearch(new byte[] {'\r', '\n', '\r', '\n'});
    private static final ByteSearch CRLF = new ByteSearch(new byte[] {'\r', '\n'});

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
        if (from + 1 < body.limit() && body.get(from) == '-' && body.get(from + 1) == '-') {
            return -1;
        }
        int crlf = CRLF.in(body, from);
        return crlf < 0 ? -1 : crlf + 2;
    }
}
