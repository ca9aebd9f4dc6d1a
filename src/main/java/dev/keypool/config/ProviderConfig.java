package dev.keypool.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * How a channel's provider is addressed beyond its {@code baseUrl}: {@code type} (the OpenAI layout of paths, or Azure
 * OpenAI's deployments), Azure's {@code apiVersion} and {@code deployments} (upstream model → deployment name, applied
 * after {@code modelMap}), and the {@code headers} and {@code query} parameters sent with every call (values may be
 * {@code ${ENV}} placeholders; they may be credentials, so nothing prints them).
 */
public record ProviderConfig(Type type, String apiVersion, Map<String, String> deployments,
                             Map<String, String> headers, Map<String, String> query) {

    /** An OpenAI-compatible provider, nothing added to its calls. */
    public static final ProviderConfig OPENAI = new ProviderConfig(Type.OPENAI, null, Map.of(), Map.of(), Map.of());

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
    }

    /** Header and query values may be credentials: their names only. */
    @Override
    public String toString() {
        return "ProviderConfig[type=" + type.configName() + ", apiVersion=" + apiVersion + ", deployments=" + deployments
                + ", headers=" + headers.keySet() + ", query=" + query.keySet() + "]";
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
