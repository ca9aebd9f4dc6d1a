package dev.keypool.component;

import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Message;
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
    private String operation;

    @UriParam(description = "The model to ask for; replaces the request's own. Needed when the body is plain text")
    private String model;

    @UriParam(description = "The tenant the request is made for. A KeyPoolTenant message header chooses another only "
            + "with allowTenantHeader=true")
    private String tenant;

    // a header comes from whatever wrote the message (a client's HTTP header, a Kafka record header): it must not
    // move a request the route pinned to a tenant onto another tenant's keys and budget unless the route allows it
    @UriParam(defaultValue = "false", description = "Whether a KeyPoolTenant message header may choose the tenant when "
            + "the tenant option is set; without the tenant option the header always chooses it")
    private boolean allowTenantHeader;

    public KeyPoolEndpoint(String uri, KeyPoolComponent component) {
        super(uri, component);
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

    public void setOperation(String operation) {
        this.operation = operation;
    }

    public String getModel() {
        return model;
    }

    public void setModel(String model) {
        this.model = model;
    }

    public String getTenant() {
        return tenant;
    }

    public void setTenant(String tenant) {
        this.tenant = tenant;
    }

    public boolean isAllowTenantHeader() {
        return allowTenantHeader;
    }

    public void setAllowTenantHeader(boolean allowTenantHeader) {
        this.allowTenantHeader = allowTenantHeader;
    }

    /** The tenant a message is sent for: the endpoint's, or its KeyPoolTenant header where that may choose. */
    String tenantOf(Message message) {
        if (tenant != null && !allowTenantHeader) {
            return tenant;
        }
        return message.getHeader(KeyPoolConstants.TENANT, tenant, String.class);
    }
}
