package dev.keypool.camel.pipeline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.camel.http.RequestBodies;
import dev.keypool.camel.http.RequestEdge;
import dev.keypool.config.Api;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.Formats;
import dev.keypool.gateway.GatewayError;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.gateway.GroupRouting;
import dev.keypool.gateway.MultipartBody;
import dev.keypool.gateway.MultipartForm;
import dev.keypool.gateway.SpooledMultipartBody;
import dev.keypool.gateway.UpstreamBody;
import dev.keypool.gateway.UpstreamPayload;
import dev.keypool.pool.KeyScope;
import dev.keypool.quota.TokenEstimate;
import dev.keypool.quota.TokenEstimator;
import dev.keypool.routing.ModelGroup;
import dev.keypool.routing.ModelGroups;
import dev.keypool.tenant.Tenant;
import dev.keypool.tenant.TenantCharge;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;

/**
 * Two steps of the gateway core: reading a request (400/413 for a bad body), and planning its channel chain (404
 * for a model no channel serves, 403 for one its tenant may not use).
 */
public final class RequestPlanner {

    /** What a request costs that a key's token limits do not count (uploads, count_tokens). */
    private static final TokenEstimate NO_TOKENS = new TokenEstimate(0, 0);

    /** Anthropic's token counting endpoint (routes/messages.camel.yaml). */
    static final String COUNT_TOKENS = "messages/count_tokens";

    private final Channels channels;
    private final ObjectMapper mapper;
    private final long maxBodyBytes;
    private final long maxUploadBytes;
    private final TokenEstimator tokens;
    private final ModelGroups groups;
    private final GroupRouting groupRouting;

    /**
     * @param maxBodyBytes   the largest JSON body (keypool.max-body-bytes)
     * @param maxUploadBytes the largest multipart upload (keypool.max-audio-body-bytes)
     */
    public RequestPlanner(Channels channels, ObjectMapper mapper, long maxBodyBytes, long maxUploadBytes,
            TokenEstimator tokens, ModelGroups groups, GroupRouting groupRouting) {
        this.tokens = tokens;
        this.groups = groups;
        this.groupRouting = groupRouting;
        this.channels = channels;
        this.mapper = mapper;
        this.maxBodyBytes = maxBodyBytes;
        this.maxUploadBytes = maxUploadBytes;
    }

    /**
     * Reads a JSON body with a {@code model}: chat, embeddings, responses, messages and the JSON paths of
     * keypool.passthrough-paths.
     */
    public void read(Exchange exchange) {
        String endpoint = exchange.getProperty(Exchanges.ENDPOINT, String.class);
        Api api = api(exchange);
        byte[] raw = exchange.getMessage().getBody(byte[].class);
        if (raw == null || raw.length == 0) {
            throw GatewayError.badRequest("invalid_json", "Request body is empty; expected a JSON object");
        }
        if (raw.length > maxBodyBytes) {
            throw GatewayError.tooLarge(raw.length, maxBodyBytes);
        }
        ObjectNode json = parse(raw);
        JsonNode model = json.get("model");
        if (model == null || !model.isTextual() || model.asText().isBlank()) {
            throw GatewayError.badRequest("missing_model", "'model' is required and must be a non-empty string");
        }
        if (api == Api.CHAT || api == Api.MESSAGES) {
            JsonNode messages = json.get("messages");
            if (messages == null || !messages.isArray() || messages.isEmpty()) {
                throw GatewayError.badRequest("missing_messages", "'messages' is required and must be a non-empty array");
            }
        } else if (api == Api.EMBEDDINGS && (json.get("input") == null || json.get("input").isNull())) {
            throw GatewayError.badRequest("missing_input", "'input' is required");
        }
        JsonNode streamField = json.get("stream");
        if (streamField != null && !streamField.isNull() && !streamField.isBoolean()) {
            throw GatewayError.badRequest("invalid_type", "Invalid type for 'stream': expected a boolean, but got "
                    + streamField.getNodeType().name().toLowerCase(Locale.ROOT) + " instead");
        }
        boolean stream = api.streams() && streamField != null && streamField.asBoolean(false);
        if (stream && exchange.getProperty(StreamClient.PROPERTY) == null) {
            // an application in this JVM (the keypool component) brings its own stream client; a batch line has none
            HttpMessage http = exchange.getIn(HttpMessage.class);
            if (http == null) {
                throw GatewayError.badRequest("streaming_unsupported",
                        "\"stream\": true needs the HTTP entry point or a stream listener (keypool component)");
            }
            exchange.setProperty(StreamClient.PROPERTY, new HttpStreamClient(http.getResponse()));
        }
        // counting a prompt's tokens (Anthropic's count_tokens) uses none of a key's token limits, only a request
        String modelName = model.asText();
        Supplier<TokenEstimate> estimate = COUNT_TOKENS.equals(endpoint) ? () -> NO_TOKENS
                : () -> tokens.estimate(channels.modelName(modelName), json, api.answers());
        read(exchange, new ClientRequest(endpoint, api, modelName, new UpstreamBody(mapper, raw, json,
                api.streamUsageOnRequest()), stream, estimate));
    }

    /**
     * A multipart upload with a {@code model} form field (audio transcriptions and translations), checked and sent on
     * byte for byte (the entry route leaves it unread: platform-http would keep only the parsed form). Over HTTP/1.1 it
     * is on disk already ({@link RequestEdge}) and is sent from there; a request that came another way (HTTP/2, the
     * keypool component) is read whole.
     */
    public void readMultipart(Exchange exchange) {
        String endpoint = exchange.getProperty(Exchanges.ENDPOINT, String.class);
        Api api = api(exchange);
        String contentType = exchange.getMessage().getHeader(Exchange.CONTENT_TYPE, String.class);
        UpstreamPayload body;
        MultipartForm.Field model;
        Path spooled = RequestBodies.spooled(exchange);
        if (spooled != null) {
            // written to disk as it arrived: looked at through a mapping, sent from the file, never whole in the heap
            try (FileChannel file = FileChannel.open(spooled, StandardOpenOption.READ)) {
                long size = file.size();
                if (size > maxUploadBytes) {
                    throw GatewayError.tooLarge(size, maxUploadBytes);
                }
                model = model(file.map(FileChannel.MapMode.READ_ONLY, 0, size), contentType);
                body = new SpooledMultipartBody(spooled, size, contentType, model);
            } catch (IOException e) {
                throw new UncheckedIOException("upload could not be read back", e);
            }
        } else {
            byte[] raw = RequestBodies.read(exchange, maxUploadBytes);
            model = model(ByteBuffer.wrap(raw), contentType);
            body = new MultipartBody(MultipartForm.of(raw, contentType).orElseThrow(), raw, contentType, model);
        }
        // an upload's cost is not counted in tokens: a key's token limits see none of it
        read(exchange, new ClientRequest(endpoint, api, model.value(), body, false, () -> NO_TOKENS));
    }

    /** The {@code model} field of a multipart form; 400 for a body that is not one, or has none. */
    private static MultipartForm.Field model(ByteBuffer body, String contentType) {
        MultipartForm form = MultipartForm.of(body, contentType).orElseThrow(() -> GatewayError.badRequest(
                "invalid_content_type", "Expected a multipart/form-data body with a boundary"));
        return form.field("model").filter(m -> !m.value().isBlank()).orElseThrow(() ->
                GatewayError.badRequest("missing_model", "'model' is required as a form field"));
    }

    private static void read(Exchange exchange, ClientRequest request) {
        exchange.setProperty(Exchanges.STREAM, request.stream());
        exchange.setProperty(Exchanges.CLIENT_REQUEST, request);
    }

    /**
     * The channel chain of the request read before: the primary channel serving its model and the fallbacks; for
     * a tenant only the channels it may use, and 403 {@code model_not_allowed} when that leaves none, when the
     * request names ({@code channel/model}) a channel it may not use, or when the model is not one of its models.
     */
    public void plan(Exchange exchange) {
        ClientRequest read = exchange.getProperty(Exchanges.CLIENT_REQUEST, ClientRequest.class);
        TenantCharge charge = exchange.getProperty(Exchanges.TENANT_CHARGE, TenantCharge.class);
        // a model group (design §16) before a channel's model of the same name; channel/group pins the group's walk
        ModelGroup group = groups.get(read.model());
        String pinnedChannel = null;
        if (group == null) {
            String unpinned = channels.modelName(read.model());
            group = unpinned.equals(read.model()) ? null : groups.get(unpinned);
            pinnedChannel = group == null ? null
                    : read.model().substring(0, read.model().length() - unpinned.length() - 1);
        }
        Channels.Plan plan = group == null ? channelPlan(read)
                : groupRouting.plan(group, read.api(), charge == null ? KeyScope.SHARED : charge.tenant().keyScope(),
                        sticky(group, charge, read), pinnedChannel);
        List<Channel> chain = plan.chain();
        List<String> models = plan.models();
        if (charge != null) {
            Tenant tenant = charge.tenant();
            if (!tenant.mayUseModel(plan.model())) {
                throw GatewayError.modelNotAllowed("Tenant " + tenant.name() + " may not use model '" + plan.model() + "'");
            }
            boolean pinned = !read.model().equals(plan.model());
            Channels.Plan allowed = plan.only(channel -> tenant.mayUseChannel(channel.name()));
            chain = allowed.chain();
            models = allowed.models();
            if (chain.isEmpty() || pinned && !tenant.mayUseChannel(plan.chain().get(0).name())) {
                throw GatewayError.modelNotAllowed("Tenant " + tenant.name() + " may not use the channels serving model '"
                        + plan.model() + "' (" + plan.chain().stream().map(Channel::name).collect(Collectors.joining(", "))
                        + ")");
            }
        }
        List<String> tooExpensive = List.of();
        if (group != null) {
            // the cost guard prices the walk against the first step this request may take
            Channels.Plan affordable = GroupRouting.affordable(group, new Channels.Plan(plan.model(), chain, models));
            chain = affordable.chain();
            models = affordable.models();
            tooExpensive = affordable.tooExpensive();
        }
        GatewayRequest request = new GatewayRequest(read.endpoint(), read.api(), plan.model(), chain, read.body(),
                read.stream(), read::estimate, charge);
        if (models != null) {
            request.sendModels(models);
        }
        request.skippedAsTooExpensive(tooExpensive);
        if (exchange.getProperty(Exchanges.BATCH_LINE) != null) {
            request.markBatch();
        }
        exchange.setProperty(Exchanges.REQUEST, request);
    }

    /**
     * The channels of the model that speak the request's format; when none does, those of the other format, which get
     * it translated (design §17). The native plan is tried first, so a request that needs no translation costs nothing
     * more.
     */
    private Channels.Plan channelPlan(ClientRequest read) {
        try {
            return channels.plan(read.model(), read.api());
        } catch (GatewayError notServed) {
            Api other = Formats.other(read.api());
            if (other == null || !"model_not_found".equals(notServed.code())) {
                throw notServed;
            }
            try {
                return channels.plan(read.model(), other);
            } catch (GatewayError notServedEither) {
                throw notServed;
            }
        }
    }

    /** Whom a sticky group keeps on one target: the tenant, or the end user of OpenAI's {@code user} field. */
    private static String sticky(ModelGroup group, TenantCharge charge, ClientRequest read) {
        return switch (group.sticky()) {
            case NONE -> null;
            case TENANT -> charge == null ? null : charge.tenant().name();
            case USER -> read.body() instanceof UpstreamBody json ? json.user() : null;
        };
    }

    /** The API the entry route named (kpApi). */
    private static Api api(Exchange exchange) {
        String name = exchange.getProperty(Exchanges.API, String.class);
        return Api.named(name).orElseThrow(() -> new IllegalStateException("entry route set no known API: " + name));
    }

    private ObjectNode parse(byte[] raw) {
        try {
            JsonNode node = mapper.readTree(raw);
            if (node instanceof ObjectNode object) {
                return object;
            }
        } catch (JsonProcessingException e) {
            throw GatewayError.badRequest("invalid_json", "Request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw GatewayError.badRequest("invalid_json", "Request body could not be read");
        }
        throw GatewayError.badRequest("invalid_json", "Request body must be a JSON object");
    }
}
