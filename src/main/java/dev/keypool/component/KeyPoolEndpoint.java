package dev.keypool.component;

import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.support.DefaultEndpoint;

/** {@code keypool:chat} or {@code keypool:embeddings}: one OpenAI call through KeyPool's pipeline. Producer only. */
@UriEndpoint(firstVersion = "0.1.0", scheme = "keypool", title = "KeyPool", syntax = "keypool:operation",
        producerOnly = true, category = {Category.AI}, headersClass = KeyPoolConstants.class)
public class KeyPoolEndpoint extends DefaultEndpoint {

    @UriPath(enums = "chat,embeddings", description = "The OpenAI API to call")
    @Metadata(required = true)
    private final String operation;

    @UriParam
    private final KeyPoolOptions options;

    public KeyPoolEndpoint(String uri, KeyPoolComponent component, String operation, KeyPoolOptions options) {
        super(uri, component);
        this.operation = operation;
        this.options = options;
    }

    @Override
    public Producer createProducer() {
        return new KeyPoolProducer(this);
    }

    @Override
    public Consumer createConsumer(Processor processor) {
        throw new UnsupportedOperationException("keypool: is a producer only (to: keypool:chat)");
    }

    @Override
    public KeyPoolComponent getComponent() {
        return (KeyPoolComponent) super.getComponent();
    }

    public String getOperation() {
        return operation;
    }

    public KeyPoolOptions getOptions() {
        return options;
    }
}
