package dev.keypool.camel;

import org.apache.camel.builder.RouteBuilder;

/**
 * One route per alert sink of keypool.yaml, from the routeTemplate {@code keypool-alert-sink} in
 * routes/alerts.camel.yaml, made at startup as {@link dev.keypool.camel.routes.ChannelRoutes} makes the channels'.
 */
public class AlertSinkRoutes extends RouteBuilder {

    static final String TEMPLATE = "keypool-alert-sink";

    @Override
    public void configure() {
        AlertSinks alertSinks = getContext().getRegistry().lookupByNameAndType("alertSinks", AlertSinks.class);
        if (alertSinks == null) {
            return;
        }
        for (AlertSinks.Sink sink : alertSinks.sinks()) {
            templatedRoute(TEMPLATE)
                    .routeId("alert-sink-" + sink.index())
                    .parameter("sink", String.valueOf(sink.index()))
                    .parameter("uri", sink.uri())
                    .parameter("format", sink.format());
        }
    }
}
