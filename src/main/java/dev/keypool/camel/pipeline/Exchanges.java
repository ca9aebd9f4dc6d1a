package dev.keypool.camel.pipeline;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import dev.keypool.camel.batch.BatchLines;
import dev.keypool.camel.http.ClientHangup;
import dev.keypool.config.ProviderConfig;
import dev.keypool.gateway.GatewayRequest;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/** Names of the exchange properties the routes and beans share. */
public final class Exchanges {

    /** The provider path after the base URL ("chat/completions", "audio/speech" …), set by the entry route. */
    public static final String ENDPOINT = "kpEndpoint";
    /** The API of the request ({@link dev.keypool.config.Api#configName()}: "chat", "responses" …), set by the entry route. */
    public static final String API = "kpApi";
    /**
     * Whether the client asked for {@code stream: true}, for the choice in upstream-attempt (a plain property:
     * {@code ${exchangeProperty.kpRequest.stream}} would call the getter by reflection on every request).
     */
    static final String STREAM = "kpStream";
    /**
     * True once the fallback walk ends: a channel served the request ({@link ChannelOutcomes#served}), the client hung
     * up ({@link ChannelRouter}), or the wait for quota room at the end of the chain found none in time
     * ({@link CapacityWait}). The walk's loop tests this one property after each round, the round that served included:
     * one look at the exchange where a test of each exit looked three times and compared each value.
     */
    static final String WALK_OVER = "kpWalkOver";
    /** The route of the channel the fallback walk goes to next ({@link ChannelRouter}); absent when the round is done. */
    static final String NEXT_CHANNEL = "kpNextChannel";
    /**
     * Why the fallback walk names no channel this round ({@link ChannelRouter}): {@link ChannelRouter#SERVED},
     * {@link ChannelRouter#CLIENT_GONE} or {@link ChannelRouter#CHAIN_DONE}; absent while it names one.
     */
    static final String WALK_END = "kpWalkEnd";
    /** The {@link GatewayRequest} of this exchange. */
    static final String REQUEST = "kpRequest";
    /** The current channel's provider URL for this request, read by toD in upstream-attempt. */
    public static final String UPSTREAM_URL = "kpUpstreamUrl";
    /** The current channel's timeout of a whole call (streams: until the first byte), in milliseconds. */
    public static final String TIMEOUT_MS = "kpTimeoutMs";
    /** The current channel's timeout to open a connection, in milliseconds. */
    public static final String CONNECT_TIMEOUT_MS = "kpConnectTimeoutMs";
    /** The current channel's {@code http2} setting as written in keypool.yaml, an option of the vertx-http call. */
    public static final String HTTP2 = "kpHttp2";
    /** The current channel's {@code caFile}, an option of the vertx-http call; absent when it has none. */
    public static final String CA_FILE = "kpCaFile";

    /** The {@link dev.keypool.tenant.Tenant} whose token the request carries, set by {@link TenantGate}; absent without tenants. */
    public static final String TENANT = "kpTenant";
    /** The request's {@link dev.keypool.tenant.TenantCharge}, once its tenant's limits admitted it. */
    static final String TENANT_CHARGE = "kpTenantCharge";
    /** The tenant's {@link dev.keypool.tenant.RateLimits} for the x-ratelimit-* headers of any answer. */
    static final String RATE_LIMITS = "kpRateLimits";
    /** The {@link ClientRequest} read from the body by {@link RequestPlanner}, before its channels are planned. */
    public static final String CLIENT_REQUEST = "kpClientRequest";
    /** The health probe ({@link dev.keypool.probe.Probe}) an exchange of route probe-key sends. */
    public static final String PROBE = "kpProbe";
    /** The probe's HTTP method (GET for models, POST for chat), read by toD in probe-key. */
    public static final String PROBE_METHOD = "kpProbeMethod";
    /** Every probe of a POST /admin/probe, sent or skipped, for its report. */
    public static final String PROBE_ROUND = "kpProbeRound";
    /**
     * The name of the tenant a host application's request is made for, when it came through the keypool component
     * (header KeyPoolTenant or the endpoint's tenant option, set by routes/component.camel.yaml): the host is trusted
     * to name it, as an HTTP client is trusted by its token.
     */
    public static final String NAMED_TENANT = "kpTenantName";

    /** The {@link dev.keypool.batch.BatchLine} a batch route runs through the gateway core; absent for client requests. */
    public static final String BATCH_LINE = "kpBatchLine";
    /** The id of the batch whose lines the batch route runs. */
    public static final String BATCH_ID = "kpBatchId";
    /**
     * The soonest room ({@link java.time.Instant}) for a batch line held back by quotas or cooling, set by
     * {@link CapacityWait} instead of a wait: its batch rests until then ({@link BatchLines}).
     */
    public static final String NOT_BEFORE = "kpNotBefore";
    /** The id of the async task a task route runs. */
    public static final String TASK_ID = "kpTaskId";

    /** The {@link ClientHangup} of a request that came in over HTTP ({@link Admission}). */
    public static final String CLIENT_GONE = "kpClientGone";
    /**
     * True on a request whose route's end only writes its answer, nothing waiting for it on the thread that ends it (the
     * HTTP requests of {@code GatewayHttpEngine}; not a Camel caller's, whose own steps may follow on that thread). The
     * copy an async task is made of keeps it: the task calls the core synchronously, so its own steps stay on its thread.
     */
    public static final String ANSWERED_AT_ROUTE_END = "kpAnsweredAtRouteEnd";
    /**
     * The Vert.x context of the event loop that read a request that came in over HTTP ({@code GatewayHttpEngine}): its
     * provider calls go out on that loop's client wherever they are sent from ({@code UpstreamClients}).
     */
    public static final String REQUEST_EVENT_LOOP = "kpRequestEventLoop";

    private Exchanges() {
    }

    /**
     * Makes the message the HTTP answer: status, content type and body, and no other header, so that nothing
     * of the request (its Authorization, say) or of a provider's answer is echoed by platform-http.
     */
    public static void answer(Message message, int status, String contentType, Object body) {
        message.removeHeaders("*");
        message.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        message.setHeader(Exchange.CONTENT_TYPE, contentType);
        // platform-http-vertx ends the response with a ByteBuffer in one write, with its Content-Length; a byte[]
        // would go through its InputStream pump instead: chunked, and a worker-thread hand-off for every read
        if (body instanceof byte[] bytes) {
            message.setBody(ByteBuffer.wrap(bytes));
        } else if (body instanceof String text) {
            message.setBody(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
        } else {
            message.setBody(body);
        }
    }

    /** Whether the client hung up; its request then stops without blaming a key or a channel. */
    static boolean clientGone(Exchange exchange) {
        ClientHangup hangup = exchange.getProperty(CLIENT_GONE, ClientHangup.class);
        return hangup != null && hangup.isGone();
    }

    public static GatewayRequest request(Exchange exchange) {
        GatewayRequest request = exchange.getProperty(REQUEST, GatewayRequest.class);
        if (request == null) {
            throw new IllegalStateException("no KeyPool request on exchange " + exchange.getExchangeId());
        }
        return request;
    }

    /** The provider's {@code http2} and {@code caFile}, as the vertx-http call of upstream-attempt and probe-key reads them. */
    public static void transport(Exchange exchange, ProviderConfig provider) {
        exchange.setProperty(HTTP2, provider.http2().configName());
        if (provider.caFile() != null) {
            exchange.setProperty(CA_FILE, provider.caFile().toString());
        } else {
            // a channel visited before this one may have had one (a failed visit leaves its properties)
            exchange.removeProperty(CA_FILE);
        }
    }
}
