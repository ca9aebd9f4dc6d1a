package dev.keypool.camel.pipeline;

import java.io.IOException;
import java.time.Clock;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.config.Api;
import dev.keypool.gateway.GatewayRequest;
import dev.keypool.gateway.UpstreamBody;
import dev.keypool.quota.TokenEstimator;
import dev.keypool.translate.Translation;
import dev.keypool.translate.TranslationSettings;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The steps of a request whose channel speaks the other format (design §17): the request translated once its chain is
 * planned, Anthropic's token count answered here when the channel has no such endpoint, and the provider's answer or
 * error turned back into the client's format. A request every channel of which speaks its format passes each step after
 * one look at its chain.
 */
public final class Translations {

    /** Set when a count_tokens request goes to a channel that cannot count: the gateway answers it. */
    static final String COUNT_LOCALLY = "kpCountLocally";

    private final ObjectMapper mapper;
    private final TokenEstimator tokens;
    private final TranslationSettings settings;
    private final Clock clock;

    public Translations(ObjectMapper mapper, TokenEstimator tokens, TranslationSettings settings, Clock clock) {
        this.mapper = mapper;
        this.tokens = tokens;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * After the plan: for a chain with a channel of the other format, the request as that format writes it, which that
     * channel's keys count their tokens on.
     */
    public void prepare(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        if (!request.needsTranslation()) {
            return;
        }
        ClientRequest read = exchange.getProperty(Exchanges.CLIENT_REQUEST, ClientRequest.class);
        if (!(read.body() instanceof UpstreamBody body)) {
            return;
        }
        Translation translation = request.api() == Api.MESSAGES ? Translation.ANTHROPIC_TO_OPENAI
                : Translation.OPENAI_TO_ANTHROPIC;
        ObjectNode translated = translation.request(body.json(), settings);
        // counted for the model the request was planned for: the one it names, without a channel/ prefix
        request.translateWith(new UpstreamBody(mapper, write(translated), translated, false),
                () -> tokens.estimate(request.model(), translated, true));
        if (RequestPlanner.COUNT_TOKENS.equals(request.endpoint())
                && !request.primary().config().servesApi(Api.MESSAGES)) {
            exchange.setProperty(COUNT_LOCALLY, true);
        }
    }

    /**
     * Anthropic's count_tokens for a model only OpenAI-format channels serve: the prompt counted by the local tokenizer,
     * as the request those channels would get; no provider is called.
     */
    public void countTokens(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        ObjectNode count = mapper.createObjectNode().put("input_tokens", request.estimatedPromptTokens());
        String requestId = RequestLog.id(exchange);
        Message message = exchange.getMessage();
        Exchanges.answer(message, 200, "application/json", write(count));
        message.setHeader(RequestLog.HEADER, requestId);
        message.setHeader(Translation.HEADER, Translation.ANTHROPIC_TO_OPENAI.headerValue());
    }

    /**
     * After the upstream call: a translated channel's answer (or the 4xx error it passed back) in the client's format.
     * A stream was translated event by event as it was relayed, and has no body left here.
     */
    public void answer(Exchange exchange) {
        GatewayRequest request = Exchanges.request(exchange);
        Translation translation = request.translation();
        Message message = exchange.getMessage();
        if (translation == null || message.getBody() == null) {
            return;
        }
        byte[] body = message.getBody(byte[].class);
        Integer status = message.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        JsonNode json = read(body);
        ObjectNode translated = status != null && status >= 400 ? translation.error(status, json)
                : translation.answer(json, clock.instant().getEpochSecond());
        message.setBody(write(translated));
        message.setHeader(Exchange.CONTENT_TYPE, "application/json");
    }

    private JsonNode read(byte[] body) {
        try {
            JsonNode json = body == null || body.length == 0 ? null : mapper.readTree(body);
            return json == null ? mapper.missingNode() : json;
        } catch (IOException notJson) {
            return mapper.missingNode();
        }
    }

    private byte[] write(JsonNode json) {
        try {
            return mapper.writeValueAsBytes(json);
        } catch (JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
