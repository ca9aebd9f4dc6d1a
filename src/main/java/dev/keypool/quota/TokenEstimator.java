package dev.keypool.quota;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;

/**
 * What a request will cost in tokens, before it is sent (design §6): its prompt ({@code messages}, {@code input},
 * {@code prompt}, {@code instructions}, Anthropic's {@code system}) counted with jtokkit in the
 * encoding of the model's family ({@code o200k_base} for models jtokkit does not know), plus the answer it may
 * get: {@code max_completion_tokens}, {@code max_tokens} or {@code max_output_tokens}, else a quarter of the prompt
 * and at least 256. Thread-safe.
 */
public final class TokenEstimator {

    /** Chat adds a few tokens per message for its role and framing. */
    static final int PER_MESSAGE = 4;
    static final int MIN_ANSWER = 256;

    /**
     * The encodings most models count with: {@code o200k_base} (the GPT-4o family, and every model jtokkit does not
     * know) and {@code cl100k_base} (GPT-4, GPT-3.5). Models of older encodings load theirs when first counted.
     */
    private static final List<EncodingType> LOADED_FIRST = List.of(EncodingType.O200K_BASE, EncodingType.CL100K_BASE);

    /** Loads an encoding when a request first needs it: one takes ~30 MB of heap, which a gateway without token limits never uses. */
    private final EncodingRegistry registry = Encodings.newLazyEncodingRegistry();
    private volatile boolean loaded;
    private volatile String loadedOn;

    /**
     * Loads the encodings on a thread of its own, and returns at once: a gateway with token limits starts counting
     * without a request loading them (tens of milliseconds or more), on an event loop its route may run on, which holds
     * every other connection of that loop meanwhile. A count asked during the load loads its own encoding, or waits for
     * the registry's load of the same one.
     */
    public void loadInBackground() {
        Thread loader = new Thread(this::load, "keypool-tokenizer-load");
        loader.setDaemon(true);
        loader.start();
    }

    /** Whether the encodings most models count with are loaded: a count then loads nothing. */
    public boolean loaded() {
        return loaded;
    }

    /** The name of the thread that loaded them, or null before. */
    public String loadedOn() {
        return loadedOn;
    }

    private synchronized void load() {
        if (!loaded) {
            loadedOn = Thread.currentThread().getName();
            LOADED_FIRST.forEach(registry::getEncoding);
            loaded = true;
        }
    }

    /**
     * @param body     the request as the client sent it
     * @param answers  whether the call produces tokens (chat, completions, responses) or only reads them (embeddings)
     */
    public TokenEstimate estimate(String model, JsonNode body, boolean answers) {
        Encoding encoding = encoding(model);
        long prompt = 0;
        for (String field : new String[] {"messages", "input", "prompt", "instructions", "system"}) {
            prompt += count(body.path(field), encoding);
        }
        prompt += PER_MESSAGE * (long) body.path("messages").size();
        if (!answers) {
            return new TokenEstimate(prompt, 0);
        }
        for (String field : new String[] {"max_completion_tokens", "max_tokens", "max_output_tokens"}) {
            if (body.path(field).canConvertToLong() && body.path(field).asLong() > 0) {
                return new TokenEstimate(prompt, body.path(field).asLong());
            }
        }
        return new TokenEstimate(prompt, Math.max(MIN_ANSWER, prompt / 4));
    }

    /** The tokens of an answer's text, for a stream whose provider reported no usage. */
    public long count(String model, CharSequence text) {
        return text.length() == 0 ? 0 : encoding(model).countTokensOrdinary(text.toString());
    }

    private Encoding encoding(String model) {
        // not load(): a count before the start's load, or in a gateway that has none, loads only its own encoding
        return registry.getEncodingForModel(model).orElseGet(() -> registry.getEncoding(EncodingType.O200K_BASE));
    }

    /** Tokens of every string inside {@code node}: message contents, content parts, input arrays. */
    private static long count(JsonNode node, Encoding encoding) {
        if (node.isTextual()) {
            return encoding.countTokensOrdinary(node.asText());
        }
        long total = 0;
        for (JsonNode child : node) {
            total += count(child, encoding);
        }
        return total;
    }
}
