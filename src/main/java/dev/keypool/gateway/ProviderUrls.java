package dev.keypool.gateway;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import dev.keypool.config.ChannelConfig;
import dev.keypool.config.ProviderConfig;

/**
 * The URL of a provider call, by the channel's {@code type}. OpenAI's layout: {@code {baseUrl}/{endpoint}}. Azure
 * OpenAI's: the model's deployment in the path of the calls that take one, {@code
 * {baseUrl}/openai/deployments/{deployment}/chat/completions} (likewise completions, embeddings, images and audio), and
 * {@code {baseUrl}/openai/{endpoint}} for the others (Responses, where the deployment is the body's model, and models),
 * each with {@code ?api-version=}. The channel's {@code query} parameters follow on any provider.
 */
public final class ProviderUrls {

    private ProviderUrls() {
    }

    /**
     * The call's URL without its query ({@link #query}).
     *
     * @param endpoint      the OpenAI path of the call, such as {@code chat/completions}
     * @param upstreamModel the model the call is for, after the channel's modelMap
     */
    public static String url(ChannelConfig channel, String endpoint, String upstreamModel) {
        ProviderConfig provider = channel.provider();
        if (provider.type() != ProviderConfig.Type.AZURE) {
            return channel.baseUrl() + "/" + endpoint;
        }
        return takesDeployment(endpoint)
                ? channel.baseUrl() + "/openai/deployments/" + encode(provider.deployment(upstreamModel)) + "/" + endpoint
                : channel.baseUrl() + "/openai/" + endpoint;
    }

    /**
     * The query of every call of the channel, encoded ({@code api-version=…&name=value}), or null for none. Apart from
     * the URL because the routes pass it as a header: camel-http and vertx-http take a URL's query as their options.
     */
    public static String query(ChannelConfig channel) {
        ProviderConfig provider = channel.provider();
        boolean azure = provider.type() == ProviderConfig.Type.AZURE;
        if (!azure && provider.query().isEmpty()) {
            return null;
        }
        StringBuilder query = new StringBuilder();
        if (azure) {
            query.append("api-version=").append(encode(provider.apiVersion()));
        }
        for (Map.Entry<String, String> parameter : provider.query().entrySet()) {
            if (!query.isEmpty()) {
                query.append('&');
            }
            query.append(encode(parameter.getKey())).append('=').append(encode(parameter.getValue()));
        }
        return query.toString();
    }

    /** Whether Azure serves the call under the model's deployment (Responses and models it serves for the resource). */
    static boolean takesDeployment(String endpoint) {
        return endpoint.equals("chat/completions") || endpoint.equals("completions") || endpoint.equals("embeddings")
                || endpoint.startsWith("images/") || endpoint.startsWith("audio/");
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
