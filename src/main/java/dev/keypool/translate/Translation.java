package dev.keypool.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A request in one format served by a channel that speaks the other (design §17): Anthropic's Messages over an
 * OpenAI chat channel, or OpenAI's chat over an Anthropic Messages channel. Each direction maps the request, the answer,
 * the provider's errors and the event stream (docs/translation.md has the table, field by field).
 */
public enum Translation {

    /** A {@code /v1/messages} request sent to a channel's {@code /chat/completions}. */
    ANTHROPIC_TO_OPENAI("anthropic->openai", "messages", "chat/completions") {
        @Override
        public ObjectNode request(ObjectNode client, TranslationSettings settings) {
            return AnthropicToOpenAi.request(client);
        }

        @Override
        public ObjectNode answer(JsonNode upstream, long created) {
            return AnthropicToOpenAi.answer(upstream);
        }

        @Override
        public ObjectNode error(int status, JsonNode upstream) {
            return AnthropicToOpenAi.error(status, upstream);
        }

        @Override
        public StreamTranslator stream(ObjectMapper mapper, boolean includeUsage, long created) {
            return new ChatToMessagesEvents(mapper);
        }
    },

    /** A {@code /v1/chat/completions} request sent to a channel's {@code /messages}. */
    OPENAI_TO_ANTHROPIC("openai->anthropic", "chat/completions", "messages") {
        @Override
        public ObjectNode request(ObjectNode client, TranslationSettings settings) {
            return OpenAiToAnthropic.request(client, settings);
        }

        @Override
        public ObjectNode answer(JsonNode upstream, long created) {
            return OpenAiToAnthropic.answer(upstream, created);
        }

        @Override
        public ObjectNode error(int status, JsonNode upstream) {
            return OpenAiToAnthropic.error(status, upstream);
        }

        @Override
        public StreamTranslator stream(ObjectMapper mapper, boolean includeUsage, long created) {
            return new MessagesToChatEvents(mapper, includeUsage, created);
        }
    };

    /** The value of the {@code X-KeyPool-Translated} header on an answer that was translated. */
    public static final String HEADER = "X-KeyPool-Translated";

    private final String headerValue;
    private final String clientEndpoint;
    private final String upstreamEndpoint;

    Translation(String headerValue, String clientEndpoint, String upstreamEndpoint) {
        this.headerValue = headerValue;
        this.clientEndpoint = clientEndpoint;
        this.upstreamEndpoint = upstreamEndpoint;
    }

    /** {@code anthropic->openai}: the client's format, then the provider's. */
    public String headerValue() {
        return headerValue;
    }

    /** The path after the channel's baseUrl for a request the client sent to {@code endpoint}. */
    public String upstreamEndpoint(String endpoint) {
        return clientEndpoint.equals(endpoint) ? upstreamEndpoint : endpoint;
    }

    /** The request as the provider takes it. */
    public abstract ObjectNode request(ObjectNode client, TranslationSettings settings);

    /**
     * The provider's answer as the client's API writes it.
     *
     * @param created the epoch second to stamp an OpenAI answer with
     */
    public abstract ObjectNode answer(JsonNode upstream, long created);

    /** A provider's error body (4xx passed back) in the client's error shape; the status stays. */
    public abstract ObjectNode error(int status, JsonNode upstream);

    /**
     * A converter for one stream, fed the provider's whole events in order.
     *
     * @param includeUsage whether the client asked for the usage chunk ({@code stream_options.include_usage})
     * @param created      the epoch second to stamp OpenAI chunks with
     */
    public abstract StreamTranslator stream(ObjectMapper mapper, boolean includeUsage, long created);
}
