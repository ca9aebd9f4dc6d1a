package dev.keypool.camel.routes;

import java.util.Set;

import dev.keypool.gateway.PassthroughPaths;
import org.apache.camel.builder.RouteBuilder;

/**
 * One thin entry route per path of {@code keypool.passthrough-paths}, from the routeTemplate keypool-entry of
 * routes/gateway.camel.yaml: platform-http takes one path per consumer, and the list is configuration, so the
 * instances are made here (as {@link ChannelRoutes} does for channels). Each names its endpoint and API and hands
 * the request to one of the two generic pipelines, gateway-core (JSON) or multipart-core.
 */
public class PassthroughRoutes extends RouteBuilder {

    @Override
    public void configure() {
        // the list application.properties ships: without it the seven paths would be gone without a word
        String setting = getContext().getPropertiesComponent().resolveProperty("keypool.passthrough-paths")
                .orElseThrow(() -> new IllegalStateException(
                        "Setting keypool.passthrough-paths is missing: start KeyPool with its application.properties"));
        for (PassthroughPaths.Entry entry : PassthroughPaths.parse(setting)) {
            boolean multipart = entry.shape() == PassthroughPaths.Shape.MULTIPART;
            templatedRoute("keypool-entry")
                    .routeId("api-" + entry.id())
                    .prefixId(entry.id() + "-")
                    // a multipart body stays unread: Vert.x's body handler would keep only the parsed form, not the bytes
                    .parameter("from", "platform-http:/v1/" + entry.path() + "?httpMethodRestrict=POST"
                            + (multipart ? "&useBodyHandler=false" : ""))
                    .parameter("endpoint", entry.path())
                    .parameter("api", entry.api().configName())
                    .parameter("core", multipart ? "direct:multipart-core" : "direct:gateway-core");
        }
        TemplateReloads.report(getContext(), Set.of("keypool-entry"));
    }
}
