package dev.keypool.camel.admin;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.function.Function;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.gateway.GatewayError;
import dev.keypool.store.RequestLogReader;
import dev.keypool.store.RequestLogRow;
import org.apache.camel.Exchange;

/**
 * {@code GET /admin/requests?tenant=&status=&model=&from=&to=&limit=&cursor=}: the request log, newest first, a page at
 * a time ({@code limit} up to 1,000, 100 by default; {@code nextCursor} names the next page). {@code from} and
 * {@code to} are ISO-8601 instants ({@code 2026-12-01T00:00:00Z}).
 */
public final class AdminRequests {

    private static final int DEFAULT_LIMIT = 100;

    private final RequestLogReader reader;
    private final ObjectMapper mapper;

    public AdminRequests(RequestLogReader reader, ObjectMapper mapper) {
        this.reader = reader;
        this.mapper = mapper;
    }

    public void list(Exchange exchange) throws Exception {
        RequestLogReader.Query query = new RequestLogReader.Query(
                text(exchange, "tenant"), parse(exchange, "status", Integer::valueOf), text(exchange, "model"),
                parse(exchange, "from", Instant::parse), parse(exchange, "to", Instant::parse),
                limit(exchange), parse(exchange, "cursor", Long::valueOf));
        RequestLogReader.Page page = reader.page(query);
        ObjectNode root = mapper.createObjectNode();
        ArrayNode rows = root.putArray("requests");
        for (RequestLogReader.Row row : page.rows()) {
            rows.add(json(row.row()));
        }
        if (page.nextCursor() == null) {
            root.putNull("nextCursor");
        } else {
            root.put("nextCursor", String.valueOf(page.nextCursor()));
        }
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(root));
    }

    private ObjectNode json(RequestLogRow row) {
        ObjectNode o = mapper.createObjectNode();
        o.put("time", row.time().toString());
        o.put("requestId", row.requestId());
        o.put("source", row.source());
        o.put("tenant", row.tenant());
        o.put("api", row.api());
        o.put("model", row.model());
        o.put("servedModel", row.servedModel());
        o.put("channel", row.channel());
        o.put("key", row.keyFingerprint());
        o.put("pool", row.pool());
        o.put("attempts", row.attempts());
        o.put("fallbackLevel", row.fallbackLevel());
        o.put("status", row.status());
        o.put("errorCode", row.errorCode());
        o.put("promptTokens", row.promptTokens());
        o.put("completionTokens", row.completionTokens());
        o.put("cachedTokens", row.cachedTokens());
        o.put("costUsd", row.costUsd());
        o.put("latencyMs", row.latencyMs());
        o.put("ttfbMs", row.ttfbMs());
        return o;
    }

    private static int limit(Exchange exchange) {
        Integer limit = parse(exchange, "limit", Integer::valueOf);
        if (limit == null) {
            return DEFAULT_LIMIT;
        }
        if (limit < 1 || limit > RequestLogReader.MAX_LIMIT) {
            throw GatewayError.badRequest("invalid_parameter", "limit must be 1 to " + RequestLogReader.MAX_LIMIT);
        }
        return limit;
    }

    private static String text(Exchange exchange, String name) {
        String value = exchange.getMessage().getHeader(name, String.class);
        return value == null || value.isBlank() ? null : value;
    }

    private static <T> T parse(Exchange exchange, String name, Function<String, T> parser) {
        String value = text(exchange, name);
        if (value == null) {
            return null;
        }
        try {
            return parser.apply(value.trim());
        } catch (NumberFormatException | DateTimeParseException e) {
            throw GatewayError.badRequest("invalid_parameter", "Query parameter " + name + " is not valid"
                    + (name.equals("from") || name.equals("to") ? " (an ISO-8601 instant, e.g. 2026-12-01T00:00:00Z)" : ""));
        }
    }
}
