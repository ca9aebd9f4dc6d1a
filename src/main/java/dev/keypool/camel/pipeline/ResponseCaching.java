package dev.keypool.camel.pipeline;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.Set;

import dev.keypool.config.Api;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.gateway.UpstreamBody;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.routing.CachePolicy;
import dev.keypool.routing.CachedAnswer;
import dev.keypool.routing.ModelGroup;
import dev.keypool.routing.ModelGroups;
import dev.keypool.routing.ResponseCache;
import dev.keypool.tenant.TenantAdmission;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The steps of a model group's response cache (design §16 {@code cache}) in routes/gateway.camel.yaml: look up before
 * the walk (a fresh answer is the answer, no provider is called), keep a 200 after it, and answer with a stale entry
 * when no target could serve. Only non-stream chat completions of a group with {@code cache:} take part; a client
 * opts out with {@code Cache-Control: no-cache} (or {@code no-store}).
 */
public final class ResponseCaching {

    /** The request's {@link Lookup}: set only when the request takes part in its group's cache. */
    static final String CACHE = "kpCache";
    /** How the cache answered the request ({@link #HIT} or {@link #STALE}); absent when it did not. */
    static final String CACHE_ANSWER = "kpCacheAnswer";
    /** On the answer: {@code hit}, {@code stale} or {@code miss}; absent when the request does not take part. */
    public static final String HEADER = "X-KeyPool-Cache";
    static final String HIT = "hit";
    static final String STALE = "stale";
    static final String MISS = "miss";
    /** The request log's {@code pool} of an answer from the cache, and the channel label of its metrics. */
    static final String FROM_CACHE = "cache";

    /** Fields that change who asks or how the answer travels, not the answer. */
    private static final Set<String> NOT_IN_KEY = Set.of("user", "stream");
    private static final String ENDPOINT = "chat/completions";

    /** A request's entry in its group's cache, and the fresh answer the lookup found (null: none). */
    record Lookup(String key, CachePolicy policy, CachedAnswer fresh) {
    }

    private final ResponseCache cache;
    private final ModelGroups groups;
    private final GatewayMetrics metrics;
    private final RequestLog requestLog;

    public ResponseCaching(ResponseCache cache, ModelGroups groups, GatewayMetrics metrics, RequestLog requestLog) {
        this.cache = cache;
        this.groups = groups;
        this.metrics = metrics;
        this.requestLog = requestLog;
    }

    /**
     * Before the walk, while the client's headers are still there: whether the request takes part in its group's cache,
     * and the fresh answer if there is one ({@code kpCacheAnswer = hit}). A hit's tenant admission is decided now if it
     * waited for a key (limits shared through Redis): a hit counts against the tenant's rpm, not its tokens or budget.
     */
    public void lookup(Exchange exchange) {
        ClientRequest read = exchange.getProperty(Exchanges.CLIENT_REQUEST, ClientRequest.class);
        if (read == null || read.stream() || read.api() != Api.CHAT || !ENDPOINT.equals(read.endpoint())
                || !(read.body() instanceof UpstreamBody body)) {
            return;
        }
        ModelGroup group = groups.get(read.model());
        if (group == null || group.cache() == null || optedOut(exchange.getMessage().getHeader("Cache-Control", String.class))
                || !group.cache().takes(body.deterministic())) {
            return;
        }
        GatewayRequest request = Exchanges.request(exchange);
        CachePolicy policy = group.cache();
        String key = ResponseCache.key(policy.shared() ? "" : "tenant:" + request.tenant(), body.without(NOT_IN_KEY));
        CachedAnswer fresh = cache.fresh(key, policy).orElse(null);
        exchange.setProperty(CACHE, new Lookup(key, policy, fresh));
        if (fresh != null) {
            TenantAdmission pending = TenantGate.pendingAdmission(request);
            if (pending != null) {
                TenantGate.decideAlone(pending);
            }
            exchange.setProperty(CACHE_ANSWER, HIT);
        }
    }

    /** The fresh answer the lookup found, at once: {@code X-KeyPool-Cache: hit}. */
    public void answer(Exchange exchange) {
        answer(exchange, exchange.getProperty(CACHE, Lookup.class).fresh(), HIT);
    }

    /**
     * The walk found no target that could serve: an entry past its ttl but within {@code staleFor} (or one another
     * request stored meanwhile) answers instead of the error, {@code X-KeyPool-Cache: stale}.
     */
    public void answerStale(Exchange exchange) {
        Lookup lookup = exchange.getProperty(CACHE, Lookup.class);
        Optional<CachedAnswer> usable = cache.usable(lookup.key(), lookup.policy());
        usable.ifPresent(a -> answer(exchange, a, a.freshAt(cache.nowMillis(), lookup.policy()) ? HIT : STALE));
    }

    /** After the walk: a provider's 200 is kept for the group's {@code ttl} (and {@code staleFor}). */
    public void store(Exchange exchange) {
        Lookup lookup = exchange.getProperty(CACHE, Lookup.class);
        Message message = exchange.getMessage();
        Integer status = message.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (lookup == null || status == null || status != 200 || !Exchanges.request(exchange).isServed()) {
            return;
        }
        byte[] body = bytes(message.getBody());
        if (body != null) {
            cache.store(lookup.key(), body, lookup.policy());
        }
        message.setHeader(HEADER, MISS);
    }

    private void answer(Exchange exchange, CachedAnswer answer, String how) {
        exchange.setProperty(CACHE_ANSWER, how);
        GatewayRequest request = Exchanges.request(exchange);
        Message message = exchange.getMessage();
        Exchanges.answer(message, 200, "application/json", answer.body());
        message.setHeader(HEADER, how);
        message.setHeader(RequestLog.HEADER, RequestLog.id(exchange));
        TenantGate.addRateLimitHeaders(exchange);
        metrics.request(FROM_CACHE, request.model(), request.tenant(), HIT.equals(how) ? GatewayMetrics.SUCCESS : STALE);
        requestLog.answered(exchange, request, 200);
    }

    /** The answer's bytes as platform-http will send them; null for a body of another kind (not cached). */
    private static byte[] bytes(Object body) {
        if (body instanceof ByteBuffer buffer) {
            ByteBuffer view = buffer.duplicate();
            byte[] bytes = new byte[view.remaining()];
            view.get(bytes);
            return bytes;
        }
        return body instanceof byte[] bytes ? bytes.clone() : null;
    }

    /** {@code Cache-Control: no-cache} or {@code no-store}: the request neither reads nor fills the cache. */
    static boolean optedOut(String cacheControl) {
        if (cacheControl == null) {
            return false;
        }
        for (String directive : cacheControl.split(",")) {
            String d = directive.trim();
            if (d.equalsIgnoreCase("no-cache") || d.equalsIgnoreCase("no-store")) {
                return true;
            }
        }
        return false;
    }
}
