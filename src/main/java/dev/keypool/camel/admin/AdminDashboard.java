package dev.keypool.camel.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.gateway.GatewayError;
import org.apache.camel.Exchange;

/**
 * GET /admin/ and GET /admin/assets/{name}: the dashboard, static files inside the jar (classpath folder
 * {@code dashboard/}: the page, its scripts, the vendored chart library). No CDN, no external fonts: the machine
 * running KeyPool may have no internet. The files hold nothing secret: the page asks for the admin token and calls
 * the guarded admin API with it.
 * <p>
 * Served by this bean rather than the HTTP server's static handler so that the files follow the admin API (404 while
 * it is off) and only plain file names of that one folder are ever looked up (no path, no traversal).
 */
public final class AdminDashboard {

    static final String FOLDER = "dashboard/";
    static final String PAGE = FOLDER + "index.html";
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    private static final Map<String, String> CONTENT_TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "txt", "text/plain; charset=utf-8");

    private final byte[] page;
    /** The files read so far, by name: those of the folder, read once each. */
    private final Map<String, byte[]> assets = new ConcurrentHashMap<>();

    public AdminDashboard() {
        page = read(PAGE).orElseThrow(() -> new IllegalStateException(PAGE + " is missing from the classpath"));
    }

    public void page(Exchange exchange) {
        Exchanges.answer(exchange.getMessage(), 200, CONTENT_TYPES.get("html"), page);
        exchange.getMessage().setHeader("Cache-Control", "no-store");
    }

    /** One file of the dashboard's folder by its plain name ({@code name} path parameter); 404 for anything else. */
    public void asset(Exchange exchange) {
        String name = exchange.getMessage().getHeader("name", String.class);
        String type = name == null ? null : CONTENT_TYPES.get(name.substring(name.lastIndexOf('.') + 1));
        if (type == null || !FILE_NAME.matcher(name).matches()) {
            throw notFound();
        }
        byte[] file = assets.get(name);
        if (file == null) {
            // only files found are kept: names asked for in vain must not pile up
            file = read(FOLDER + name).orElseThrow(AdminDashboard::notFound);
            assets.put(name, file);
        }
        Exchanges.answer(exchange.getMessage(), 200, type, file);
        // the page and its scripts change together with the jar: a browser must not mix an old script with a new page
        exchange.getMessage().setHeader("Cache-Control", "no-cache");
    }

    private static GatewayError notFound() {
        return new GatewayError(404, "invalid_request_error", "not_found", "No such dashboard file", null);
    }

    private static Optional<byte[]> read(String resource) {
        try (InputStream in = AdminDashboard.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
