package dev.keypool.camel.admin;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.admin.InvalidChangeException;
import dev.keypool.admin.KeyPatch;
import dev.keypool.admin.RuntimeChanges;
import dev.keypool.admin.RuntimeChangesStore;
import dev.keypool.breaker.BreakerState;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.config.KeyConfig;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.GatewayError;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.pool.ApiKey;
import dev.keypool.quota.KeyQuota;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's changes of design §9, called by the routes of routes/admin.camel.yaml after the token check: enable,
 * disable or drain a key, patch its weight and limits, force a channel's breaker. The key pool and breaker make and log
 * each change (fingerprints only) and publish it as a state change; this bean remembers it in {@link RuntimeChanges},
 * keeps them in their store ({@code state.dir}, so that they survive a restart; with Redis, for the other instances too)
 * and answers JSON. A key is named by fingerprint in
 * every channel that has it, or in one with {@code ?channel=}.
 */
public final class AdminActions {

    private static final Logger LOG = LoggerFactory.getLogger(AdminActions.class);

    private final Channels channels;
    private final RuntimeChanges changes;
    private final RuntimeChangesStore store;
    private final GatewayMetrics metrics;
    private final ObjectMapper mapper;

    public AdminActions(Channels channels, RuntimeChanges changes, RuntimeChangesStore store, GatewayMetrics metrics,
                        ObjectMapper mapper) {
        this.channels = channels;
        this.changes = changes;
        this.store = store;
        this.metrics = metrics;
        this.mapper = mapper;
    }

    /** POST /admin/keys/{fingerprint}/enable: ACTIVE with a clean failure streak, no longer draining. */
    public void enable(Exchange exchange) throws IOException {
        changeKeys(exchange, (channel, fingerprint) -> {
            channel.pool().controls().enable(fingerprint);
            changes.enabled(channel.name(), fingerprint);
        });
    }

    /** POST /admin/keys/{fingerprint}/disable: out of rotation until enabled. */
    public void disable(Exchange exchange) throws IOException {
        changeKeys(exchange, (channel, fingerprint) -> {
            channel.pool().controls().disable(fingerprint);
            changes.held(channel.name(), fingerprint, RuntimeChanges.KeyHold.DISABLED);
        });
    }

    /** POST /admin/keys/{fingerprint}/drain: no new requests; those in flight finish. */
    public void drain(Exchange exchange) throws IOException {
        changeKeys(exchange, (channel, fingerprint) -> {
            channel.pool().controls().drain(fingerprint);
            changes.held(channel.name(), fingerprint, RuntimeChanges.KeyHold.DRAINING);
        });
    }

    /** PATCH /admin/keys/{fingerprint} {@code {"weight":3,"rpm":100}}: live, over the file's values. */
    public void patch(Exchange exchange) throws IOException {
        KeyPatch patch = invalidAs400(() -> KeyPatch.parse(json(exchange)));
        changeKeys(exchange, (channel, fingerprint) -> {
            KeyConfig config = channel.config().keysByFingerprint().get(fingerprint);
            if (config == null) {
                throw new GatewayError(409, "invalid_request_error", "key_not_in_config",
                        "Key " + fingerprint + " was added at runtime: its weight and limits cannot be changed", null);
            }
            changes.patched(channel.name(), fingerprint, patch);
            channel.pool().controls().tune(fingerprint, changes.weight(channel.config(), config), changes.limits(channel.config(), config));
        });
        metrics.refresh();   // a newly limited window gets its quota gauge
    }

    /** POST /admin/channels/{name}/breaker {@code {"state":"OPEN","reason":"…"}}: forced, logged by the breaker. */
    public void breaker(Exchange exchange) throws IOException {
        String name = exchange.getMessage().getHeader("name", String.class);
        Channel channel = channels.get(name == null ? "" : name).orElseThrow(() -> new GatewayError(404,
                "invalid_request_error", "channel_not_found", "No channel '" + name + "' in the configuration", null));
        JsonNode body = json(exchange);
        String wanted = body.path("state").asText("").toUpperCase(Locale.ROOT);
        BreakerState state;
        try {
            state = BreakerState.valueOf(wanted);
        } catch (IllegalArgumentException unknown) {
            throw GatewayError.badRequest("invalid_state", "'state' must be OPEN, CLOSED or HALF_OPEN");
        }
        String reason = body.path("reason").asText("").isBlank() ? "admin API" : body.path("reason").asText().strip();
        switch (state) {
            case OPEN -> channel.breaker().forceOpen(reason);
            case CLOSED -> channel.breaker().forceClosed();
            case HALF_OPEN -> channel.breaker().forceHalfOpen();
        }
        changes.breakerForced(channel.name(), state, reason);
        save();
        ObjectNode answer = mapper.createObjectNode();
        answer.put("channel", channel.name());
        answer.put("state", channel.breaker().state().name());
        answer.put("forcedOpen", channel.breaker().forcedOpen());
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(answer));
    }

    @FunctionalInterface
    private interface KeyChange {
        void apply(Channel channel, String fingerprint);
    }

    private void changeKeys(Exchange exchange, KeyChange change) throws IOException {
        String fingerprint = exchange.getMessage().getHeader("fingerprint", String.class);
        String only = exchange.getMessage().getHeader("channel", String.class);
        List<Channel> holders = new ArrayList<>();
        for (Channel channel : channels.all()) {
            if ((only == null || only.equals(channel.name())) && fingerprint != null && channel.pool().find(fingerprint).isPresent()) {
                holders.add(channel);
            }
        }
        if (holders.isEmpty()) {
            throw new GatewayError(404, "invalid_request_error", "key_not_found", "No key with fingerprint '"
                    + fingerprint + "'" + (only == null ? "" : " in channel '" + only + "'"), null);
        }
        holders.forEach(channel -> change.apply(channel, fingerprint));
        save();
        ObjectNode answer = mapper.createObjectNode();
        answer.put("fingerprint", fingerprint);
        ArrayNode list = answer.putArray("channels");
        holders.forEach(channel -> list.add(keyNode(channel, channel.pool().find(fingerprint).orElseThrow())));
        Exchanges.answer(exchange.getMessage(), 200, "application/json", mapper.writeValueAsBytes(answer));
    }

    private ObjectNode keyNode(Channel channel, ApiKey key) {
        ObjectNode node = mapper.createObjectNode();
        node.put("channel", channel.name());
        node.put("state", channel.pool().stateOf(key).name());
        node.put("draining", key.draining());
        node.put("weight", key.weight());
        ObjectNode limits = node.putObject("limits");
        for (KeyQuota.Use use : channel.pool().quotaOf(key).use()) {
            limits.put(use.window().configName(), use.limit());
        }
        return node;
    }

    /** Writes the runtime changes; a failure is logged, the change itself stands until the next restart. */
    private void save() {
        try {
            store.write(changes);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Admin state {} not written, runtime changes would not survive a restart: {}", store.path(), e.toString());
        }
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

    /** An invalid change as 400 with every problem in the message. */
    static <T> T invalidAs400(java.util.function.Supplier<T> parse) {
        try {
            return parse.get();
        } catch (InvalidChangeException invalid) {
            throw GatewayError.badRequest("invalid_change", String.join("; ", invalid.problems()));
        }
    }
}
