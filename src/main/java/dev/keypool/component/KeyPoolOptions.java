package dev.keypool.component;

import org.apache.camel.Message;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriParams;

/**
 * What a {@code keypool:} endpoint sends its requests as, read from its URI's options once when the component makes
 * it ({@link KeyPoolComponent}).
 *
 * @param model             the model to ask for, replacing the request's own; needed when the body is plain text
 * @param tenant            the tenant the requests are made for
 * @param allowTenantHeader whether a KeyPoolTenant message header may choose another tenant than {@code tenant}
 */
@UriParams
public record KeyPoolOptions(
        @UriParam(description = "The model to ask for; replaces the request's own. Needed when the body is plain text")
        String model,
        @UriParam(description = "The tenant the request is made for. A KeyPoolTenant message header chooses another "
                + "only with allowTenantHeader=true")
        String tenant,
        @UriParam(defaultValue = "false", description = "Whether a KeyPoolTenant message header may choose the tenant "
                + "when the tenant option is set; without the tenant option the header always chooses it")
        boolean allowTenantHeader) {

    /**
     * The tenant a message is sent for: the endpoint's, or its KeyPoolTenant header where that may choose. A header
     * comes from whatever wrote the message (a client's HTTP header, a Kafka record header): it must not move a request
     * the route pinned to a tenant onto another tenant's keys and budget unless the route allows it.
     */
    String tenantOf(Message message) {
        if (tenant != null && !allowTenantHeader) {
            return tenant;
        }
        return message.getHeader(KeyPoolConstants.TENANT, tenant, String.class);
    }
}
