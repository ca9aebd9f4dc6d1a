package dev.keypool.langchain4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.component.KeyPoolConstants;
import dev.keypool.component.KeyPoolStreamListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;

/**
 * How both models reach the gateway core: {@code keypool:chat}, the keypool component's entry (admission, tenant,
 * the fallback walk, the request log), with the OpenAI request JSON as body; no HTTP.
 */
final class KeyPoolChat {

    private static final String ENDPOINT = "keypool:chat";

    final ObjectMapper mapper = new ObjectMapper();
    final OpenAiChatRequests requests = new OpenAiChatRequests(mapper);
    final CamelContext context;
    final ChatRequestParameters defaults;
    private final String tenant;
    private final ProducerTemplate template;

    KeyPoolChat(CamelContext context, String tenant, ChatRequestParameters defaults) {
        this.context = context;
        this.tenant = tenant;
        this.defaults = defaults;
        this.template = context.createProducerTemplate();
    }

    /**
     * Sends one request; returns the answer's JSON (null for a stream, whose events went to {@code listener}).
     *
     * @throws RuntimeException the gateway's error as LangChain4j's exception ({@link KeyPoolErrors})
     */
    String send(ChatRequest request, KeyPoolStreamListener listener) throws Exception {
        byte[] json = mapper.writeValueAsBytes(requests.toJson(request, listener != null));
        Exchange answer = template.send(ENDPOINT, exchange -> {
            exchange.getMessage().setBody(json);
            if (tenant != null) {
                exchange.getMessage().setHeader(KeyPoolConstants.TENANT, tenant);
            }
            if (listener != null) {
                exchange.getMessage().setHeader(KeyPoolConstants.STREAM_LISTENER, listener);
            }
        });
        if (answer.getException() != null) {
            throw KeyPoolErrors.toLangChain4j(answer.getException());
        }
        return answer.getMessage().getBody(String.class);
    }
}
