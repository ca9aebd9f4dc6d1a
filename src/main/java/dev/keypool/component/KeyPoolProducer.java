package dev.keypool.component;

import java.io.IOException;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.http.ClientHangup;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.camel.pipeline.StreamClient;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Producer;
import org.apache.camel.support.DefaultProducer;
import org.apache.camel.support.service.ServiceHelper;

/**
 * Sends the request into KeyPool's pipeline (routes/component.camel.yaml: direct:keypool-chat / direct:keypool-embeddings)
 * on an exchange of its own, so that the pipeline's work (it clears every header of its answer) touches nothing of the
 * host's message, and puts the answer back: the body, the KeyPool* headers, or a {@link KeyPoolException}. A stream
 * ({@code "stream": true} and a {@link KeyPoolStreamListener}) goes to the listener event by event; its body is then null.
 */
public class KeyPoolProducer extends DefaultProducer {

    /** The pipeline's answer headers (design §2) and the component's names for them. */
    static final Map<String, String> ANSWER_HEADERS = Map.of(
            "X-KeyPool-Channel", KeyPoolConstants.CHANNEL,
            "X-KeyPool-Key", KeyPoolConstants.KEY,
            "X-KeyPool-Attempts", KeyPoolConstants.ATTEMPTS,
            "X-Fallback-Level", KeyPoolConstants.FALLBACK_LEVEL);

    private static final ObjectMapper JSON = new ObjectMapper();
    private final OpenAiRequests requests = new OpenAiRequests(JSON);
    private Producer pipeline;

    public KeyPoolProducer(KeyPoolEndpoint endpoint) {
        super(endpoint);
    }

    @Override
    public KeyPoolEndpoint getEndpoint() {
        return (KeyPoolEndpoint) super.getEndpoint();
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        pipeline = getEndpoint().getCamelContext().getEndpoint("direct:keypool-" + getEndpoint().getOperation()).createProducer();
        ServiceHelper.startService(pipeline);
    }

    @Override
    protected void doStop() throws Exception {
        ServiceHelper.stopService(pipeline);
        super.doStop();
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        KeyPoolEndpoint endpoint = getEndpoint();
        Message in = exchange.getMessage();
        Exchange call = endpoint.createExchange();
        Message request = call.getMessage();
        request.setBody(requests.toJson(in.getBody(), endpoint.getOperation(), endpoint.getOptions().model()));
        String tenant = endpoint.getOptions().tenantOf(in);
        if (tenant != null) {
            request.setHeader(KeyPoolConstants.TENANT, tenant);
        }
        if (in.getHeader(KeyPoolConstants.STREAM_LISTENER) instanceof KeyPoolStreamListener listener) {
            // a listener's cancel is a client's hang-up: the walk stops there, no other key or channel is tried
            ClientHangup hangup = new ClientHangup();
            call.setProperty(Exchanges.CLIENT_GONE, hangup);
            call.setProperty(StreamClient.PROPERTY, new ListenerStreamClient(listener, hangup::hangUp));
        }

        pipeline.process(call);

        if (call.getException() != null) {
            exchange.setException(call.getException());
            return;
        }
        Message answer = call.getMessage();
        int status = answer.getHeader(Exchange.HTTP_RESPONSE_CODE, 200, Integer.class);
        String body = answer.getBody(String.class);
        if (status >= 400) {
            exchange.setException(error(status, body, answer.getHeader("Retry-After", Long.class)));
            return;
        }
        in.setBody(body);
        ANSWER_HEADERS.forEach((http, name) -> in.setHeader(name, answer.getHeader(http)));
    }

    /** The OpenAI-shaped error of the pipeline, or of a provider's 4xx passed back, as an exception. */
    static KeyPoolException error(int status, String body, Long retryAfterSeconds) {
        JsonNode error = null;
        try {
            error = body == null ? null : JSON.readTree(body).get("error");
        } catch (IOException notJson) {
            // a provider's error that is not JSON: the status says it all
        }
        if (error == null || !error.isObject()) {
            return new KeyPoolException(status, null, null, "KeyPool request failed with HTTP status " + status, retryAfterSeconds);
        }
        return new KeyPoolException(status, text(error, "type"), text(error, "code"),
                error.path("message").asText("KeyPool request failed with HTTP status " + status), retryAfterSeconds);
    }

    private static String text(JsonNode error, String field) {
        JsonNode value = error.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }
}
