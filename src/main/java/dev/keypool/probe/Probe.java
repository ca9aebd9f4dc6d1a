package dev.keypool.probe;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

import dev.keypool.config.ProbeConfig;
import dev.keypool.gateway.Channel;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.KeyPool;
import dev.keypool.pool.KeyState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One health probe of one key (design §8): what to send, and what its answer does to the key — exactly what the same
 * answer to a real call does (401/402/403 disable it, 429 cools it, 5xx and timeouts count towards
 * {@code disableAfter}), and a success brings a DISABLED key back. The channel's breaker does not hear of probes:
 * they are not traffic. Ends once; a probe that could not go out (already one in flight, no quota room) ends as
 * skipped. A recovery probe (a DISABLED key of a channel without a probe block) that fails makes the key's next one
 * wait longer, except a 404 of GET /models: the provider has no such path, and the key is probed with a chat at once.
 */
public final class Probe {

    private static final Logger LOG = LoggerFactory.getLogger(Probe.class);

    /** What a chat probe may cost of a key's token quota: a few prompt tokens and one answer token. */
    static final long CHAT_TOKENS = 16;

    private final Channel channel;
    private final ApiKey key;
    private final ProbeConfig config;
    private final KeyPool.Lease lease;
    private final Runnable whenEnded;
    /** Null unless this is a recovery probe: what a 404 of GET /models tells the schedule. */
    private final Runnable modelsMissing;
    private final KeyState before;
    private final long startNanos = System.nanoTime();
    private volatile String outcome;
    private volatile KeyState after;
    private volatile long latencyMs = -1;

    Probe(Channel channel, ApiKey key, ProbeConfig config, KeyPool.Lease lease, Runnable whenEnded) {
        this(channel, key, config, lease, whenEnded, null);
    }

    /** @param modelsMissing non-null for a recovery probe: run when GET /models answers 404 */
    Probe(Channel channel, ApiKey key, ProbeConfig config, KeyPool.Lease lease, Runnable whenEnded, Runnable modelsMissing) {
        this.channel = channel;
        this.key = key;
        this.config = config;
        this.lease = lease;
        this.whenEnded = whenEnded;
        this.modelsMissing = modelsMissing;
        this.before = channel.pool().stateOf(key);
    }

    /** A probe that does not go out, and why. */
    static Probe skipped(Channel channel, ApiKey key, ProbeConfig config, String why) {
        Probe probe = new Probe(channel, key, config, null, () -> { });
        probe.outcome = "skipped: " + why;
        probe.after = probe.before;
        return probe;
    }

    public Channel channel() {
        return channel;
    }

    public ApiKey key() {
        return key;
    }

    /** Whether the probe is to be sent (it was not skipped). */
    public boolean sendable() {
        return lease != null;
    }

    /** The provider URL: {baseUrl}/models or {baseUrl}/chat/completions (on Azure, the probe model's deployment). */
    public String url() {
        return channel.upstreamUrl(config.request() == ProbeConfig.Request.MODELS ? "models" : "chat/completions",
                channel.config().upstreamModel(config.model()));
    }

    /** What the probe asks: {@code models} or {@code chat}. */
    public String request() {
        return config.request().configName();
    }

    public String method() {
        return config.request() == ProbeConfig.Request.MODELS ? "GET" : "POST";
    }

    /** The JSON of a one-token chat completion of the probe's model; null for a models probe. */
    public byte[] body() {
        if (config.request() == ProbeConfig.Request.MODELS) {
            return null;
        }
        String model = config.model().replace("\\", "\\\\").replace("\"", "\\\"");
        return ("{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}],\"max_tokens\":1}")
                .getBytes(StandardCharsets.UTF_8);
    }

    public Duration timeout() {
        return config.timeout();
    }

    /** The provider answered 2xx. */
    public void succeeded() {
        end("ok", () -> channel.pool().outcomes().recordProbeSuccess(key, elapsed()), false);
    }

    /** The provider answered {@code status} (not 2xx); {@code retryAfter} from its Retry-After header. */
    public void answered(int status, Optional<Duration> retryAfter) {
        KeyPool pool = channel.pool();
        Runnable record;
        if (status == 429) {
            record = () -> pool.outcomes().recordRateLimited(key, elapsed(), retryAfter);
        } else if (status == 401 || status == 402 || status == 403) {
            record = () -> pool.outcomes().recordRejected(key, elapsed(), status);
        } else if (status >= 500 || status == 408) {
            record = () -> pool.outcomes().recordFailure(key, elapsed(), String.valueOf(status));
        } else {
            // 404 (no /models at this provider), 400 (a chat probe of a model it does not know): not the key's fault
            record = () -> pool.outcomes().recordClientError(key, elapsed());
        }
        if (modelsMissing != null && status == 404 && config.request() == ProbeConfig.Request.MODELS) {
            Runnable recorded = record;
            // not the key's failure: its next probe, a chat, goes out at once
            if (end("404", () -> {
                recorded.run();
                modelsMissing.run();
            }, true)) {
                LOG.info("Key {}({}) probe: no GET /models at this provider (404), probing with a one-token chat",
                        key.fingerprint(), channel.name());
            }
            return;
        }
        failed(String.valueOf(status), record);
    }

    /** No answer: a timeout, a refused or reset connection ({@code cause} as real calls name it). */
    public void unreachable(String cause) {
        failed(cause, () -> channel.pool().outcomes().recordFailure(key, elapsed(), cause));
    }

    public String outcome() {
        return outcome;
    }

    public KeyState stateBefore() {
        return before;
    }

    /** The key's state once the probe ended; null while it is in flight. */
    public KeyState stateAfter() {
        return after;
    }

    /** How long the probe took; -1 while in flight or when it was skipped. */
    public long latencyMs() {
        return latencyMs;
    }

    private void failed(String cause, Runnable record) {
        // a recovery probe's failure makes the key's next probe wait longer
        Runnable recorded = modelsMissing == null ? record : () -> {
            record.run();
            channel.pool().healing().probeFailed(key, cause);
        };
        if (end(cause, recorded, true)) {
            LOG.warn("Key {}({}) probe failed: {}", key.fingerprint(), channel.name(), cause);
        }
    }

    /** Records the outcome once: on the key, on its quota reservation, and frees the key for its next probe. */
    private synchronized boolean end(String result, Runnable record, boolean failed) {
        if (outcome != null) {
            return false;
        }
        outcome = result;
        latencyMs = elapsed().toMillis();
        try {
            record.run();
            channel.pool().leases().settle(lease, OptionalLong.empty(), failed);
        } finally {
            after = channel.pool().stateOf(key);
            whenEnded.run();
        }
        return true;
    }

    private Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }
}
