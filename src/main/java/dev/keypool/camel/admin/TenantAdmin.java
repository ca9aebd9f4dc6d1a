package dev.keypool.camel.admin;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.admin.RuntimeTenants;
import dev.keypool.admin.TenantConflictException;
import dev.keypool.admin.TenantNotFoundException;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.config.ConfigException;
import dev.keypool.config.TenantChange;
import dev.keypool.config.TenantConfig;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.GatewayError;
import org.apache.camel.Exchange;

/**
 * The tenant routes of routes/tenants.camel.yaml (design §9), after the admin token check: create, list, read, patch,
 * delete a tenant and rotate its token. The work is {@link RuntimeTenants}'; this bean reads the request, answers JSON
 * and tells the other instances ({@code announce}). A token appears in the answer of create and rotate, nowhere else.
 */
public final class TenantAdmin {

    /** The longest grace a rotated token may get: a forgotten old token must not live on for years. */
    private static final long MAX_GRACE_SECONDS = 30L * 24 * 3600;

    private final RuntimeTenants tenants;
    private final Channels channels;
    private final ObjectMapper mapper;
    private final Consumer<String> announce;

    /** @param announce tells the other instances that this tenant changed (by name) */
    public TenantAdmin(RuntimeTenants tenants, Channels channels, ObjectMapper mapper, Consumer<String> announce) {
        this.tenants = tenants;
        this.channels = channels;
        this.mapper = mapper;
        this.announce = announce;
    }

    /** POST /admin/tenants {@code {"name":"team-c","rpm":60,...}}: 201 with the tenant and its token, answered once. */
    public void create(Exchange exchange) throws IOException {
        JsonNode body = json(exchange);
        List<String> problems = new ArrayList<>();
        String name = null;
        TenantChange change = null;
        try {
            name = TenantChange.name(body);
        } catch (ConfigException invalid) {
            problems.addAll(invalid.problems());
        }
        try {
            change = read(body, Set.of("name"));
        } catch (GatewayError invalid) {
            problems.add(invalid.getMessage());
        }
        if (!problems.isEmpty()) {
            throw invalid(String.join("; ", problems));
        }
        String created = name;
        TenantChange fields = change;
        RuntimeTenants.Issued issued = store(() -> tenants.create(created, fields));
        announce.accept(created);
        Exchanges.answer(exchange.getMessage(), 201, "application/json", mapper.writeValueAsBytes(issued(issued)));
    }

    /** GET /admin/tenants: every tenant in force, without tokens. */
    public void list(Exchange exchange) throws IOException {
        ObjectNode answer = mapper.createObjectNode();
        ArrayNode list = answer.putArray("tenants");
        store(tenants::list).forEach(view -> list.add(json(view)));
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(answer));
    }

    /** GET /admin/tenants/{name}. */
    public void get(Exchange exchange) throws IOException {
        String name = name(exchange);
        RuntimeTenants.View view = tenants.view(name).orElseThrow(() -> notFound(name));
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(json(view)));
    }

    /** PATCH /admin/tenants/{name} {@code {"rpm":100,"models":null}}: live, over the file's; null gives a field back. */
    public void patch(Exchange exchange) throws IOException {
        String name = name(exchange);
        TenantChange change = read(json(exchange), Set.of());
        if (change.isEmpty()) {
            throw invalid("body: names nothing to change; fields: " + String.join(", ", new TreeSet<>(TenantChange.FIELDS)));
        }
        RuntimeTenants.View view = store(() -> tenants.patch(name, change));
        announce.accept(name);
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(json(view)));
    }

    /** DELETE /admin/tenants/{name}: its token is refused from the next request on, on every instance. */
    public void delete(Exchange exchange) throws IOException {
        String name = name(exchange);
        store(() -> {
            tenants.delete(name);
            return null;
        });
        announce.accept(name);
        ObjectNode answer = mapper.createObjectNode().put("name", name).put("deleted", true);
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(answer));
    }

    /** POST /admin/tenants/{name}/rotate {@code {"graceSeconds":300}}: a new token; the old one is taken that long (default 0). */
    public void rotate(Exchange exchange) throws IOException {
        String name = name(exchange);
        byte[] raw = exchange.getMessage().getBody(byte[].class);
        long grace = 0;
        if (raw != null && raw.length > 0) {
            JsonNode body = json(exchange);
            body.fieldNames().forEachRemaining(field -> {
                if (!field.equals("graceSeconds")) {
                    throw invalid(field + ": unknown field; fields: graceSeconds");
                }
            });
            JsonNode seconds = body.path("graceSeconds");
            if (!seconds.isMissingNode() && !seconds.isNull()) {
                if (!seconds.canConvertToLong() || !seconds.isIntegralNumber() || seconds.asLong() < 0
                        || seconds.asLong() > MAX_GRACE_SECONDS) {
                    throw invalid("graceSeconds: must be a whole number from 0 to " + MAX_GRACE_SECONDS);
                }
                grace = seconds.asLong();
            }
        }
        Duration graceTime = Duration.ofSeconds(grace);
        RuntimeTenants.Issued issued = store(() -> tenants.rotate(name, graceTime));
        announce.accept(name);
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(issued(issued)));
    }

    private ObjectNode issued(RuntimeTenants.Issued issued) {
        ObjectNode answer = mapper.createObjectNode();
        answer.put("token", issued.token());
        answer.setAll(json(issued.tenant()));
        return answer;
    }

    private ObjectNode json(RuntimeTenants.View view) {
        TenantConfig t = view.tenant();
        ObjectNode node = mapper.createObjectNode();
        node.put("name", view.name());
        node.put("origin", view.origin().storedName());
        node.put("rpm", t.rpm());
        node.put("burst", t.burst());
        node.put("tpm", t.tpm());
        node.put("rpd", t.rpd());
        node.put("priority", t.priority().configName());
        node.putPOJO("channels", t.channels());
        node.putPOJO("models", t.models());
        ObjectNode budget = node.putObject("budget");
        budget.put("daily", t.budgetDaily());
        budget.put("monthly", t.budgetMonthly());
        node.put("borrow", t.borrow());
        node.put("maxInFlight", t.maxInFlight());
        node.put("expiresAt", text(view.expiresAt()));
        node.put("expired", view.expired());
        node.putPOJO("overridden", view.overridden());
        node.put("previousTokenValidUntil", text(view.previousTokenUntil()));
        node.put("createdAt", text(view.createdAt()));
        node.put("updatedAt", text(view.updatedAt()));
        return node;
    }

    private TenantChange read(JsonNode body, Set<String> extra) {
        try {
            return TenantChange.read(body, channels.all().stream().map(Channel::name)
                    .collect(Collectors.toSet()), extra);
        } catch (ConfigException problems) {
            throw invalid(String.join("; ", problems.problems()));
        }
    }

    /** A change through {@link RuntimeTenants}, its refusals as the admin API's errors. */
    private static <T> T store(Supplier<T> change) {
        try {
            return change.get();
        } catch (TenantNotFoundException missing) {
            throw new GatewayError(404, "invalid_request_error", "tenant_not_found", missing.getMessage(), null);
        } catch (TenantConflictException conflict) {
            throw new GatewayError(409, "invalid_request_error", "tenant_conflict", conflict.getMessage(), null);
        } catch (ConfigException problems) {
            throw invalid(String.join("; ", problems.problems()));
        } catch (IllegalStateException storeDown) {
            throw new GatewayError(503, "service_unavailable_error", "store_unavailable", storeDown.getMessage(), 1L);
        }
    }

    private static String name(Exchange exchange) {
        String name = exchange.getMessage().getHeader("name", String.class);
        return name == null ? "" : name;
    }

    private static GatewayError notFound(String name) {
        return new GatewayError(404, "invalid_request_error", "tenant_not_found", "No tenant '" + name + "'", null);
    }

    private static GatewayError invalid(String message) {
        return GatewayError.badRequest("invalid_tenant", message);
    }

    private JsonNode json(Exchange exchange) {
        byte[] body = exchange.getMessage().getBody(byte[].class);
        if (body == null || body.length == 0) {
            throw GatewayError.badRequest("invalid_json", "Request body is empty; expected a JSON object");
        }
        try {
            return mapper.readTree(body);
        } catch (IOException e) {
            throw GatewayError.badRequest("invalid_json", "Request body is not valid JSON");
        }
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
