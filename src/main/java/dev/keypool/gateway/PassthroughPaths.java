package dev.keypool.gateway;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.keypool.config.Api;

/**
 * The setting {@code keypool.passthrough-paths}: the OpenAI paths served by the two generic pipelines, each as
 * {@code path=api} (a JSON body with a {@code model}) or {@code path=api multipart} (a form upload with a
 * {@code model} field), comma separated. The path is what follows {@code /v1/} on the gateway and the channel's
 * baseUrl at the provider, e.g. {@code audio/transcriptions=audio multipart}.
 */
public final class PassthroughPaths {

    /** How the request body reads. */
    public enum Shape { JSON, MULTIPART }

    /** One served path. */
    public record Entry(String path, Api api, Shape shape) {
        /** A route id and node prefix made of the path: "audio/speech" -> "audio-speech". */
        public String id() {
            return path.replace('/', '-');
        }
    }

    /** Served by their own routes in routes/gateway.camel.yaml and routes/messages.camel.yaml. */
    private static final Set<String> BUILT_IN = Set.of("chat/completions", "embeddings", "responses", "models",
            "messages", "messages/count_tokens");
    private static final String PATH = "[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*";

    private PassthroughPaths() {
    }

    /** Every entry of the setting; an {@link IllegalArgumentException} naming each bad entry otherwise. */
    public static List<Entry> parse(String setting) {
        List<Entry> entries = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (String raw : setting == null ? new String[0] : setting.split(",")) {
            String item = raw.strip();
            if (item.isEmpty()) {
                continue;
            }
            String[] pathAndRest = item.split("=", 2);
            String path = pathAndRest[0].strip().replaceFirst("^/?(v1/)?", "");
            String[] rest = pathAndRest.length < 2 ? new String[0] : pathAndRest[1].strip().split("\\s+");
            if (!path.matches(PATH)) {
                problems.add("'" + item + "': the path must be like audio/speech (what follows /v1/)");
            } else if (BUILT_IN.contains(path)) {
                problems.add("'" + item + "': /v1/" + path + " has its own route");
            } else if (!seen.add(path)) {
                problems.add("'" + item + "': /v1/" + path + " is listed twice");
            } else if (rest.length < 1 || rest.length > 2 || Api.named(rest[0]).isEmpty()
                    || (rest.length == 2 && !rest[1].equals("multipart"))) {
                problems.add("'" + item + "': expected path=api or path=api multipart, api one of " + Api.names());
            } else if (Api.named(rest[0]).orElseThrow().anthropic()) {
                // its entry routes keep the anthropic-* headers and answer errors in Anthropic's shape
                problems.add("'" + item + "': the messages API is served by routes/messages.camel.yaml only");
            } else {
                entries.add(new Entry(path, Api.named(rest[0]).orElseThrow(),
                        rest.length == 2 ? Shape.MULTIPART : Shape.JSON));
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("Invalid keypool.passthrough-paths: " + String.join("; ", problems));
        }
        return List.copyOf(entries);
    }
}
