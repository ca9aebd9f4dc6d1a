package dev.keypool.langchain4j;

import java.util.List;

import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import org.apache.camel.CamelContext;

/** What both KeyPool models are built from: the CamelContext KeyPool runs in, the model asked for, the tenant. */
public abstract class KeyPoolModelBuilder<B extends KeyPoolModelBuilder<B>> {

    CamelContext camelContext;
    String modelName;
    String tenant;
    ChatRequestParameters defaultRequestParameters;
    List<ChatModelListener> listeners = List.of();

    /**
     * The CamelContext whose {@code keypool} component runs the pipeline (a plain {@code DefaultCamelContext} will do:
     * the component is made and started with the first call). Required.
     */
    public B camelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
        return self();
    }

    /** The model asked for when a request names none: a model of keypool.yaml's channels or model groups. */
    public B modelName(String modelName) {
        this.modelName = modelName;
        return self();
    }

    /** The tenant (a name from keypool.yaml's tenants) whose limits, budget and keys every request uses. */
    public B tenant(String tenant) {
        this.tenant = tenant;
        return self();
    }

    /** Parameters every request has unless it sets its own (temperature, tools …). */
    public B defaultRequestParameters(ChatRequestParameters parameters) {
        this.defaultRequestParameters = parameters;
        return self();
    }

    /** LangChain4j's listeners of each request, its response and its error. */
    public B listeners(List<ChatModelListener> listeners) {
        this.listeners = List.copyOf(listeners);
        return self();
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    KeyPoolChat chat() {
        if (camelContext == null) {
            throw new IllegalStateException("camelContext is required: the CamelContext KeyPool's pipeline runs in");
        }
        ChatRequestParameters defaults = ChatRequestParameters.builder().modelName(modelName).build();
        return new KeyPoolChat(camelContext, tenant,
                defaultRequestParameters == null ? defaults : defaults.overrideWith(defaultRequestParameters));
    }
}
