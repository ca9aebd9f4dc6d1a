package dev.keypool.camel.admin;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.gateway.GatewayError;
import dev.keypool.store.UsageReader;
import org.apache.camel.Exchange;

/**
 * {@code GET /admin/usage?from=&to=&groupBy=tenant|model|channel|key&interval=hour|day}: the request log's requests,
 * tokens, cost and errors per group and UTC hour or day (docs/operations.md, "Usage queries"). {@code to} defaults to
 * now, {@code from} to a day before it ({@code interval=hour}) or 30 days ({@code day}); {@code groupBy} to tenant,
 * {@code interval} to day. At most {@link UsageReader#MAX_INTERVALS} buckets of time per query.
 */
public final class AdminUsage {

    private static final Duration HOURS_BY_DEFAULT = Duration.ofDays(1);
    private static final Duration DAYS_BY_DEFAULT = Duration.ofDays(30);

    private final UsageReader reader;
    private final ObjectMapper mapper;
    private final Clock clock;

    public AdminUsage(UsageReader reader, ObjectMapper mapper, Clock clock) {
        this.reader = reader;
        this.mapper = mapper;
        this.clock = clock;
    }

    public void usage(Exchange exchange) throws Exception {
        UsageReader.GroupBy groupBy = choice(exchange, "groupBy", UsageReader.GroupBy.TENANT.parameter())
                .as(UsageReader.GroupBy::named, "tenant, model, channel or key");
        UsageReader.Interval interval = choice(exchange, "interval", UsageReader.Interval.DAY.parameter())
                .as(UsageReader.Interval::named, "hour or day");
        Instant to = instant(exchange, "to");
        if (to == null) {
            to = clock.instant();
        }
        Instant from = instant(exchange, "from");
        if (from == null) {
            from = to.minus(interval == UsageReader.Interval.HOUR ? HOURS_BY_DEFAULT : DAYS_BY_DEFAULT);
        }
        if (!from.isBefore(to)) {
            throw GatewayError.badRequest("invalid_parameter", "from must be before to");
        }
        if (interval.buckets(from, to) > UsageReader.MAX_INTERVALS) {
            throw GatewayError.badRequest("invalid_parameter", "from to to spans " + interval.buckets(from, to) + " "
                    + interval.parameter() + "s; at most " + UsageReader.MAX_INTERVALS + " per query");
        }
        UsageReader.Usage usage = reader.read(new UsageReader.Query(from, to, groupBy, interval));
        ObjectNode root = mapper.createObjectNode();
        root.put("from", from.toString());
        root.put("to", to.toString());
        root.put("groupBy", groupBy.parameter());
        root.put("interval", interval.parameter());
        root.put("truncated", usage.truncated());
        ArrayNode data = root.putArray("data");
        for (UsageReader.Bucket b : usage.buckets()) {
            data.addObject()
                    .put("start", b.start().toString())
                    .put("group", b.group())
                    .put("requests", b.requests())
                    .put("promptTokens", b.promptTokens())
                    .put("completionTokens", b.completionTokens())
                    .put("cachedTokens", b.cachedTokens())
                    .put("cacheWriteTokens", b.cacheWriteTokens())
                    .put("costUsd", b.costUsd())
                    .put("errors", b.errors());
        }
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(root));
    }

    /** A parameter with a fixed set of values. */
    private record Choice(String name, String value) {
        <T> T as(java.util.function.Function<String, java.util.Optional<T>> named, String allowed) {
            return named.apply(value).orElseThrow(() -> GatewayError.badRequest("invalid_parameter",
                    "Query parameter " + name + " must be " + allowed));
        }
    }

    private static Choice choice(Exchange exchange, String name, String byDefault) {
        String value = exchange.getMessage().getHeader(name, String.class);
        return new Choice(name, value == null || value.isBlank() ? byDefault : value.trim());
    }

    private static Instant instant(Exchange exchange, String name) {
        String value = exchange.getMessage().getHeader(name, String.class);
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw GatewayError.badRequest("invalid_parameter", "Query parameter " + name
                    + " is not valid (an ISO-8601 instant, e.g. 2026-12-01T00:00:00Z)");
        }
    }
}
