package dev.keypool.camel.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import dev.keypool.camel.pipeline.Exchanges;
import org.apache.camel.Exchange;

/**
 * GET /admin/: the dashboard, one self-contained HTML page inside the jar (no CDN, no external fonts: the machine
 * running KeyPool may have no internet). It holds nothing secret: it asks for the admin token and calls the guarded
 * admin API with it.
 */
public final class AdminDashboard {

    static final String PAGE = "dashboard/index.html";

    private final byte[] page;

    public AdminDashboard() {
        try (InputStream in = AdminDashboard.class.getClassLoader().getResourceAsStream(PAGE)) {
            if (in == null) {
                throw new IllegalStateException(PAGE + " is missing from the classpath");
            }
            page = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void page(Exchange exchange) {
        Exchanges.answer(exchange.getMessage(), 200, "text/html; charset=utf-8", page);
        exchange.getMessage().setHeader("Cache-Control", "no-store");
    }
}
