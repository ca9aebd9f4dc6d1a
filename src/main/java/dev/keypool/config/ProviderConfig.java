package dev.keypool.config;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * How a channel's provider is addressed beyond its {@code baseUrl}: {@code type} (the OpenAI layout of paths, or Azure
 * OpenAI's deployments), Azure's {@code apiVersion} and {@code deployments} (upstream model → deployment name, applied
 * after {@code modelMap}), and the {@code headers} and {@code query} parameters sent with every call (values may be
 * {@code ${ENV}} placeholders; they may be credentials, so nothing prints them); {@code http2} whether calls over TLS
 * offer HTTP/2, and {@code caFile} a PEM file of certificates trusted besides the JVM's own (null: none).
 */
public record ProviderConfig(Type type, String apiVersion, Map<String, String> deployments,
                             Map<String, String> headers, Map<String, String> query, Http2 http2, Path caFile) {

    /** An OpenAI-compatible provider, nothing added to its calls. */
    public static final ProviderConfig OPENAI = new ProviderConfig(Type.OPENAI, null, Map.of(), Map.of(), Map.of());

    /** Whether calls to the provider offer HTTP/2 ({@code http2:} in keypool.yaml). */
    public enum Http2 {
        /** Over TLS, ALPN offers h2 then http/1.1 and the provider picks; plain http:// stays HTTP/1.1. */
        AUTO,
        /** HTTP/1.1 only. */
        OFF;

        /** Made once: every request to a provider names its transport. */
        private final String configName = name().toLowerCase(Locale.ROOT);

        public String configName() {
            return configName;
        }

        public static Optional<Http2> named(String name) {
            return Arrays.stream(values()).filter(h -> h.configName().equals(name)).findFirst();
        }

        public static String names() {
            return Arrays.stream(values()).map(Http2::configName).collect(Collectors.joining(", "));
        }
    }

    /** The layout of a provider's paths ({@code type:} in keypool.yaml). */
    public enum Type {
        /** {@code {baseUrl}/chat/completions} and the other OpenAI paths. */
        OPENAI,
        /** {@code {baseUrl}/openai/deployments/{deployment}/chat/completions?api-version=…}, the key as {@code api-key}. */
        AZURE;

        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Type> named(String name) {
            return Arrays.stream(values()).filter(t -> t.configName().equals(name)).findFirst();
        }

        /** Every name, for error messages. */
        public static String names() {
            return Arrays.stream(values()).map(Type::configName).collect(Collectors.joining(", "));
        }
    }

    public ProviderConfig {
        type = type == null ? Type.OPENAI : type;
        deployments = Copies.map(deployments);
        headers = Copies.map(headers);
        query = Copies.map(query);
        http2 = http2 == null ? Http2.AUTO : http2;
    }

    /** HTTP/2 offered over TLS, the JVM's trust only. */
    public ProviderConfig(Type type, String apiVersion, Map<String, String> deployments, Map<String, String> headers,
                          Map<String, String> query) {
        this(type, apiVersion, deployments, headers, query, Http2.AUTO, null);
    }

    /** The same provider, its certificates trusted from {@code file} besides the JVM's. */
    public ProviderConfig withCaFile(Path file) {
        return new ProviderConfig(type, apiVersion, deployments, headers, query, http2, file);
    }

    /** Header and query values may be credentials: their names only. */
    @Override
    public String toString() {
        return "ProviderConfig[type=" + type.configName() + ", apiVersion=" + apiVersion + ", deployments=" + deployments
                + ", headers=" + headers.keySet() + ", query=" + query.keySet() + ", http2=" + http2.configName()
                + ", caFile=" + caFile + "]";
    }

    /** Azure's name of the deployment that serves {@code upstreamModel}: its {@code deployments} entry, else the model's own name. */
    public String deployment(String upstreamModel) {
        return deployments.getOrDefault(upstreamModel, upstreamModel);
    }

    /** The model name the provider is sent in a request body: Azure's deployment, else the upstream model. */
    public String wireModel(String upstreamModel) {
        return type == Type.AZURE ? deployment(upstreamModel) : upstreamModel;
    }
}
