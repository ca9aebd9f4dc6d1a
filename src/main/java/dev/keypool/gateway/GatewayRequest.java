package dev.keypool.gateway;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import dev.keypool.config.Api;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyScope;
import dev.keypool.quota.Priority;
import dev.keypool.quota.TokenEstimate;
import dev.keypool.tenant.TenantCharge;
import dev.keypool.translate.Translation;

/**
 * The state of one client request on its way through the channel chain. It is stored on the exchange before
 * any circuitBreaker runs and mutated in place, so what happens inside a breaker is still known after it fails:
 * a failed visit of a channel leaves the message as it was before the visit.
 */
public final class GatewayRequest {

    /** Why a channel did not serve when none of its usable keys had quota room for the request. */
    public static final String AT_QUOTA = "at quota";

    /** Whether the serving key was the tenant's own or a shared one. */
    public static final String POOL_HEADER = "X-KeyPool-Pool";

    /** Upstream calls made for the request: on every answer, errors included. */
    public static final String ATTEMPTS_HEADER = "X-KeyPool-Attempts";

    /** Why a channel did not serve when its breaker refused the request, in error messages and the fallback log. */
    public static final String OPEN = "open";
    /** Why a channel did not serve when its attempts failed: "failed" or "failed (last: 502)". */
    public static final String FAILED = "failed";

    private final String endpoint;
    private final Api api;
    private final String model;
    private final List<Channel> chain;
    /** For a model group, the model to send at each step of the chain; null: each channel's own for {@link #model}. */
    private List<String> models;
    private final UpstreamPayload body;
    private final boolean stream;
    private Supplier<TokenEstimate> tokenEstimate;
    /** The body for a channel of the other format (design §17); null when every channel of the chain speaks the client's. */
    private UpstreamPayload translatedBody;
    private final TenantCharge charge;
    private final KeyScope keyScope;
    private TokenEstimate estimate;
    private volatile boolean streamBroken;

    private int level = -1;
    private Channel current;
    private final Set<String> triedKeys = ConcurrentHashMap.newKeySet();
    private int attemptsInChannel;
    private int totalAttempts;
    private Attempt attempt;
    private Duration lastLatency = Duration.ZERO;
    private String lastFailure;
    /** Whose fault the last failure was; null while none failed. */
    private FailedAt lastFailedAt;
    private final Map<String, String> whyNotServed = new LinkedHashMap<>();
    private List<String> tooExpensive = List.of();

    private boolean batch;

    private Instant waitDeadline;
    private long promptTokens;
    private long completionTokens;
    private double costUsd;
    private long cachedTokens;
    private long cacheWriteTokens;
    private long firstByteNanos;
    private Channel servedBy;
    private ApiKey servedKey;

    /**
     * @param tokenEstimate asked once, when a key's or the tenant's token limit first needs it
     * @param charge        what the request owes its tenant, null when the gateway has no tenants
     */
    public GatewayRequest(String endpoint, Api api, String model, List<Channel> chain, UpstreamPayload body,
                          boolean stream, Supplier<TokenEstimate> tokenEstimate, TenantCharge charge) {
        this.tokenEstimate = tokenEstimate;
        this.charge = charge;
        this.keyScope = charge == null ? KeyScope.SHARED : charge.tenant().keyScope();
        this.endpoint = endpoint;
        this.api = api;
        this.model = model;
        this.chain = chain;
        this.body = body;
        this.stream = stream;
    }

    /** For a model group: the model to send at each step of the chain (design §16). */
    public void sendModels(List<String> modelPerStep) {
        this.models = modelPerStep;
    }

    /** The model sent upstream at the current step of the chain. */
    public String upstreamModel() {
        return models != null ? models.get(level) : current.upstreamModel(model);
    }

    /** What metrics label a request with no tenant: the gateway has no tenants. */
    public static final String NO_TENANT = "none";

    /**
     * The name of the tenant this request is made for, as metrics label it (design §10 {@code tenant}); {@link #NO_TENANT}
     * when the gateway has no tenants. The one place the tenant label comes from.
     */
    public String tenant() {
        return charge == null ? NO_TENANT : charge.tenant().name();
    }

    /** {@code "stream": true}: the answer is relayed as Server-Sent Events. */
    public boolean isStream() {
        return stream;
    }

    /** Whether the gateway asked the provider for a usage chunk the client did not ask for (and must not see). */
    public boolean usageAddedByGateway() {
        return body.usageAddedByGateway();
    }

    /** Whether the client asked for a stream's usage chunk itself ({@code stream_options.include_usage}). */
    public boolean clientAskedStreamUsage() {
        return body instanceof UpstreamBody json && !json.usageAddedByGateway()
                && json.json().path("stream_options").path("include_usage").asBoolean(false);
    }

    /** A stream that broke after its first byte: the channel answered, then failed. */
    public boolean isStreamBroken() {
        return streamBroken;
    }

    void streamBroke() {
        streamBroken = true;
    }

    public String endpoint() {
        return endpoint;
    }

    public Api api() {
        return api;
    }

    /** How the provider's events of a {@code stream: true} answer read: the current channel's format. */
    public StreamFormat streamFormat() {
        Translation translation = translation();
        return StreamFormat.of(translation == null ? api : Formats.other(api));
    }

    /** How the client's events read: its API's format, whichever the provider speaks. */
    public StreamFormat clientStreamFormat() {
        return StreamFormat.of(api);
    }

    /**
     * The translation the current channel needs (design §17): null when it speaks the client's format, which is the
     * common case and costs one set lookup.
     */
    public Translation translation() {
        return current == null ? null : Formats.translation(api, current.config());
    }

    /** Whether some channel of the chain speaks the other format. */
    public boolean needsTranslation() {
        for (Channel channel : chain) {
            if (!channel.config().servesApi(api)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The request as channels of the other format get it, and what it costs in tokens as they count it: quotas and
     * limits see the request the provider really gets.
     */
    public void translateWith(UpstreamPayload translated, Supplier<TokenEstimate> translatedEstimate) {
        this.translatedBody = translated;
        if (estimate == null) {
            this.tokenEstimate = translatedEstimate;
        }
    }

    /** The path after the current channel's baseUrl: the client's, or the other format's for a translated request. */
    public String upstreamEndpoint() {
        Translation translation = translation();
        return translation == null ? endpoint : translation.upstreamEndpoint(endpoint);
    }

    /** The Content-Type of {@link #upstreamBody()}. */
    public String upstreamContentType() {
        return body.contentType();
    }

    public String model() {
        return model;
    }

    public List<Channel> chain() {
        return chain;
    }

    /** What the request owes its tenant; empty when the gateway has no tenants. */
    public Optional<TenantCharge> charge() {
        return Optional.ofNullable(charge);
    }

    /** The keys it may use in each channel: its tenant's own, then the shared ones (design §7). */
    public KeyScope keyScope() {
        return keyScope;
    }

    /** Its place in the line waiting for quota room: its tenant's priority, low for a batch line. */
    public Priority priority() {
        if (batch) {
            return Priority.LOW;
        }
        return charge == null ? Priority.NORMAL : charge.tenant().priority();
    }

    /**
     * A line of a batch job (design §12): low priority in the waiting line, and only keys below their soft limits, so
     * that interactive requests keep the rest.
     */
    public void markBatch() {
        batch = true;
    }

    public boolean isBatch() {
        return batch;
    }

    public Channel primary() {
        return chain.get(0);
    }

    /** Position of the current channel in the chain: 0 = primary, n = n-th fallback. */
    public int level() {
        return level;
    }

    public Channel current() {
        return current;
    }

    public boolean isServed() {
        return servedBy != null;
    }

    public Channel servedBy() {
        return servedBy;
    }

    public ApiKey servedKey() {
        return servedKey;
    }

    public int totalAttempts() {
        return totalAttempts;
    }

    /**
     * Whether the request was held back by quotas rather than failed: some channel had keys without room for it,
     * and none failed it (open or exhausted channels may be among the rest).
     */
    public boolean heldBackByQuota() {
        return whyNotServed.containsValue(AT_QUOTA) && whyNotServed.values().stream().noneMatch(w -> w.startsWith(FAILED));
    }

    /** Channels that did not serve, in the order tried, with why. */
    public Map<String, String> whyNotServed() {
        return whyNotServed;
    }

    /** The steps ({@code channel/model}) a model group's cost guard took out of the chain (design §16). */
    public void skippedAsTooExpensive(List<String> steps) {
        this.tooExpensive = List.copyOf(steps);
    }

    public List<String> tooExpensive() {
        return tooExpensive;
    }

    /** The model the first step of the chain sends upstream: what a walk that moves on to another model moved from. */
    public String firstUpstreamModel() {
        return models != null ? models.get(0) : chain.get(0).upstreamModel(model);
    }

    /** When this request stops waiting for quota room: {@code maxWait} after it first began to wait. */
    public Instant waitDeadline(Instant now, Duration maxWait) {
        if (waitDeadline == null) {
            waitDeadline = now.plus(maxWait);
        }
        return waitDeadline;
    }

    /** Back to the start of the chain, after waiting for room: every channel and key may be tried again. */
    public void walkAgain() {
        level = -1;
        current = null;
        triedKeys.clear();
        attemptsInChannel = 0;
        lastFailure = null;
        lastFailedAt = null;
        whyNotServed.clear();
    }

    /** Moves to the next channel of the chain, or returns null at its end. */
    public Channel advance() {
        if (level + 1 >= chain.size()) {
            level = chain.size();
            current = null;
            return null;
        }
        level++;
        current = chain.get(level);
        triedKeys.clear();
        attemptsInChannel = 0;
        lastFailure = null;
        lastFailedAt = null;
        return current;
    }

    public void skipCurrent(String why) {
        whyNotServed.put(current.name(), why);
    }

    /**
     * The request body for the current channel: the client's bytes, or a copy with the model renamed; for an upload on
     * disk, the file to send ({@link SplicedFile}). On Azure the model named is the deployment (Responses reads it).
     */
    public Object upstreamBody() {
        return (translatedBody != null && translation() != null ? translatedBody : body)
                .forModel(current.config().provider().wireModel(upstreamModel()));
    }

    public Set<String> triedKeys() {
        return triedKeys;
    }

    public int attemptsInChannel() {
        return attemptsInChannel;
    }

    /** Starts an upstream call of the current channel on a key this request has not tried there. */
    public Attempt startAttempt(KeyPool.Lease lease) {
        triedKeys.add(lease.key().fingerprint());
        attemptsInChannel++;
        totalAttempts++;
        attempt = new Attempt(this, current, lease);
        return attempt;
    }

    /** The tokens this request may cost (prompt and answer), estimated once, when a key's quota first asks. */
    public long estimatedTokens() {
        return estimate().total();
    }

    /** The prompt part of {@link #estimatedTokens()}. */
    public long estimatedPromptTokens() {
        return estimate().prompt();
    }

    private TokenEstimate estimate() {
        if (estimate == null) {
            estimate = tokenEstimate.get();
        }
        return estimate;
    }

    /** The upstream call in progress, or null when none is (it has ended, or none was started). */
    public Attempt attempt() {
        return attempt;
    }

    void attemptEnded(Attempt ended, Duration latency) {
        lastLatency = latency;
        if (attempt == ended) {
            attempt = null;
        }
    }

    /** How long the last ended attempt took. */
    public Duration lastLatency() {
        return lastLatency;
    }

    /** An attempt failed because of the provider (5xx, timeout, connection): the channel's failure. */
    void attemptFailed(String cause) {
        lastFailure = cause;
        lastFailedAt = FailedAt.PROVIDER;
    }

    /** An attempt failed because of its key (429, 401/402/403): running out of such keys exhausts the pool. */
    void keyRefused(String cause) {
        lastFailure = cause;
        lastFailedAt = FailedAt.KEY;
    }

    /**
     * The provider refused the attempt's call unprocessed: the channel is not to blame, and the key is this request's
     * to try again (a retry may pick it, as if it had not been tried).
     */
    void attemptRefused(ApiKey key) {
        triedKeys.remove(key.fingerprint());
        lastFailure = "stream refused";
        lastFailedAt = FailedAt.NOT_PROCESSED;
    }

    /** An attempt failed in the gateway itself, not at the provider: the channel is not to blame. */
    void gatewayFailed(String cause) {
        lastFailure = "gateway error: " + cause;
        lastFailedAt = FailedAt.GATEWAY;
    }

    /**
     * The current channel's last attempt failed in the gateway, or the provider refused it unprocessed: nothing of the
     * channel's health either way.
     */
    public boolean lastFailureSaysNothingOfChannel() {
        return lastFailedAt == FailedAt.GATEWAY || lastFailedAt == FailedAt.NOT_PROCESSED;
    }

    /**
     * The visit ended because the channel had no usable key left: the last attempt's key was refused and no
     * untried key can be used, as opposed to a provider that failed every attempt.
     */
    public boolean exhaustedPool() {
        return lastFailedAt == FailedAt.KEY && !current.pool().selection().hasUsableKey(keyScope, triedKeys);
    }

    /** Why the current channel failed its last attempt, e.g. "503" or "timeout"; null if none failed. */
    public String lastFailure() {
        return lastFailure;
    }

    /** The answer's tokens and cost, as the serving attempt recorded them on its key and channel. */
    void answered(long prompt, long completion, double cost) {
        promptTokens = prompt;
        completionTokens = completion;
        costUsd = cost;
    }

    /** Of the answer's prompt tokens, those read from and written to the provider's prompt cache. */
    void cached(long read, long written) {
        cachedTokens = read;
        cacheWriteTokens = written;
    }

    public long cachedTokens() {
        return cachedTokens;
    }

    public long cacheWriteTokens() {
        return cacheWriteTokens;
    }

    /** A stream's first event reached the client. */
    void firstByte() {
        if (firstByteNanos == 0) {
            firstByteNanos = System.nanoTime();
        }
    }

    public long promptTokens() {
        return promptTokens;
    }

    public long completionTokens() {
        return completionTokens;
    }

    public double costUsd() {
        return costUsd;
    }

    /** {@link System#nanoTime()} when a stream's first event reached the client; 0 when none did (or no stream). */
    public long firstByteNanos() {
        return firstByteNanos;
    }

    void served(Channel channel, ApiKey key) {
        servedBy = channel;
        servedKey = key;
    }

    /**
     * The headers of design §2 and §7 that every answer of a served request carries: where it was served, from
     * which pool ({@code own} key of its tenant, or {@code shared}), and its tenant's rate limits; handed to
     * {@code headers} one by one, in that order (no map is made for them on every answer).
     */
    public void responseHeaders(BiConsumer<String, String> headers) {
        headers.accept("X-KeyPool-Channel", servedBy.name());
        headers.accept("X-KeyPool-Key", servedKey.fingerprint());
        headers.accept(ATTEMPTS_HEADER, String.valueOf(totalAttempts));
        headers.accept("X-Fallback-Level", String.valueOf(level));
        headers.accept("X-KeyPool-Model", models != null ? models.get(level) : servedBy.upstreamModel(model));
        headers.accept(POOL_HEADER, keyScope.isOwn(servedKey) ? "own" : "shared");
        Translation translation = Formats.translation(api, servedBy.config());
        if (translation != null) {
            headers.accept(Translation.HEADER, translation.headerValue());
        }
        if (charge != null) {
            charge.rateLimits().headers().forEach(headers);
        }
    }

    /** Where an attempt failed: at the provider (5xx, timeout), with its key (429, 401/402/403), in the gateway. */
    private enum FailedAt { PROVIDER, KEY, GATEWAY, NOT_PROCESSED }
}
