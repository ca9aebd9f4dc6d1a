package dev.keypool.it;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.keypool.breaker.BreakerState;
import dev.keypool.breaker.ChannelBreaker;
import dev.keypool.testing.RoutesOnDisk;
import org.apache.logging.log4j.Level;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.apache.camel.support.RouteWatcherReloadStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The breaker is bound by KeyPool, not made by the route: when Camel Main reloads routes from disk
 * ({@code camel.main.routes-reload-enabled}, with routes-reload-remove-all-routes=false), the channel's resilience4j instance and its
 * OPEN state stay, and requests keep flowing. The routes are a copy of routes/ in a temporary directory, edited
 * on disk the way an operator would, and the test waits for Camel's own file watcher to apply the change. The tests
 * share one gateway (and its copy of the routes), each with a channel main of its own, named after the test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BreakerSurvivesReloadTest extends GatewayTestSupport {

    private static final String MARKER = "reload-marker-7f3c";

    private final RoutesOnDisk routes = RoutesOnDisk.copyOfRoutes();

    @Override
    protected String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("channels:\n");
        for (String test : testNames()) {
            yaml.append("""
                      - name: %1$s-main
                        baseUrl: UPSTREAM
                        models: [%1$s]
                        fallback: [backup]
                        keys:
                          - key: sk-main-1-%1$s
                    """.formatted(test));
        }
        return yaml + """
                  - name: backup
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-backup-1
                """;
    }

    /** This test's channel main, its model and its key. */
    private String main() {
        return testName() + "-main";
    }

    private String model() {
        return testName();
    }

    private String mainKey() {
        return "sk-main-1-" + testName();
    }

    @Override
    protected Properties overrideProperties() {
        return routes.watchedBy(super.overrideProperties());
    }

    @Test
    void should_keep_an_open_breaker_open_when_camel_reloads_another_routes_file() throws Exception {
        ChannelBreaker bound = openMainBreaker();

        // a visible change to the core every entry hands over to: proves the reload really replaced it
        reload("gateway.camel.yaml", "id: gateway-core\n");

        assertOpenAndBound(bound);
        HttpResponse<String> r = chat(main() + "/" + model());
        assertThat(markerLoggedBy("gateway-core")).as("the edited gateway-core route is running").isTrue();
        assertServedByBackupOnly(r);

        channel(main()).breaker().forceClosed();
        assertThat(bound.state()).isEqualTo(BreakerState.CLOSED);
        HttpResponse<String> after = chat(model());
        assertThat(after.statusCode()).isEqualTo(200);
        assertThat(after.headers().firstValue("X-KeyPool-Channel")).contains(main());
        assertThat(upstream.hits(mainKey())).isEqualTo(1);
    }

    /**
     * The channel routes are made at startup from keypool.yaml (ChannelRoutes), and Camel re-creates on reload only
     * the routes a file lists: an edited template cannot silently look applied. It is reported, the channels keep
     * running as they were, and the breaker with them.
     */
    @Test
    void should_report_that_an_edited_channel_template_applies_at_the_next_start() throws Exception {
        ChannelBreaker bound = openMainBreaker();

        reload("channel.camel.yaml", "uri: \"direct:channel-{{channel}}\"\n");

        assertThat(logs.messages(Level.WARN)).contains("Route template keypool-channel was reloaded, but the routes made "
                + "from it keep running the old one: restart KeyPool to apply the change");
        assertOpenAndBound(bound);
        HttpResponse<String> r = chat(main() + "/" + model());
        assertServedByBackupOnly(r);
        assertThat(markerLoggedBy("channel-backup")).as("the channel routes still run the template they were made from")
                .isFalse();

        channel(main()).breaker().forceClosed();
        HttpResponse<String> after = chat(model());
        assertThat(after.statusCode()).isEqualTo(200);
        assertThat(after.headers().firstValue("X-KeyPool-Channel")).contains(main());
        assertThat(upstream.hits(mainKey())).isEqualTo(1);
    }

    /**
     * The one way a channel route is made anew at runtime today is through Camel's route API (a restart aside):
     * the new route's circuitBreaker uses the bound instance, so the OPEN state holds. A breaker made inline by
     * the route would start CLOSED here.
     */
    @Test
    void should_keep_an_open_breaker_open_when_the_channel_route_is_made_anew() throws Exception {
        ChannelBreaker bound = openMainBreaker();

        context.getRouteController().stopRoute("channel-" + main());
        context.removeRoute("channel-" + main());
        TemplatedRouteBuilder.builder(context, "keypool-channel")
                .routeId("channel-" + main()).prefixId(main() + "-").parameter("channel", main()).add();

        assertOpenAndBound(bound);
        assertServedByBackupOnly(chat(main() + "/" + model()));
        channel(main()).breaker().forceClosed();
        HttpResponse<String> after = chat(model());
        assertThat(after.headers().firstValue("X-KeyPool-Channel")).contains(main());
        assertThat(upstream.hits(mainKey())).isEqualTo(1);
    }

    /**
     * The entry routes are made from their template once, at startup: Camel's reload re-creates the routes a file lists,
     * not the templatedRoutes. An edit of the template is reported, and the entries keep running as they were.
     */
    @Test
    void should_report_that_an_edited_entry_template_applies_at_the_next_start() throws Exception {
        reload("gateway.camel.yaml", "id: keypool-entry\n");

        assertThat(logs.messages(Level.WARN)).contains("Route template keypool-entry was reloaded, but the routes made "
                + "from it keep running the old one: restart KeyPool to apply the change");
        assertThat(chat(model()).statusCode()).isEqualTo(200);
        assertThat(markerLoggedBy("chat-completions")).as("the entries still run the template they were made from").isFalse();
    }

    private ChannelBreaker openMainBreaker() throws Exception {
        // the channel route has run once, so its circuitBreaker EIP has picked up the bound instance
        assertThat(chat(model()).headers().firstValue("X-KeyPool-Channel")).contains(main());
        upstream.clear();
        channel(main()).breaker().forceOpen("before reload");
        ChannelBreaker bound = context.getRegistry().lookupByNameAndType("breaker-" + main(), ChannelBreaker.class);
        assertThat(bound.state()).isEqualTo(BreakerState.OPEN);
        return bound;
    }

    private void assertOpenAndBound(ChannelBreaker bound) {
        assertThat(context.getRegistry().lookupByNameAndType("breaker-" + main(), ChannelBreaker.class)).isSameAs(bound);
        assertThat(bound.state()).isEqualTo(BreakerState.OPEN);
        assertThat(channel(main()).breaker().state()).isEqualTo(BreakerState.OPEN);
        assertThat(context.getRoute("channel-" + main())).isNotNull();
    }

    /** The log step added by {@link #reload} ran in this route (the log EIP logs under the route id). */
    private boolean markerLoggedBy(String routeId) {
        return logs.events().stream().anyMatch(line -> line.logger().equals(routeId) && line.text().equals(MARKER));
    }

    /** OPEN for the traffic too: the walk skips main without calling its upstream and backup serves. */
    private void assertServedByBackupOnly(HttpResponse<String> r) {
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-KeyPool-Channel")).contains("backup");
        assertThat(upstream.hits(mainKey())).isZero();
        assertThat(upstream.hits("sk-backup-1")).isEqualTo(1);
    }

    /**
     * Adds a log step with {@link #MARKER} as the first step after {@code anchor} (a line ending in the route's
     * id or from-uri), writes the file in one atomic rename so the watcher sees one whole new file, and waits
     * until Camel's reload strategy has applied it.
     */
    private void reload(String file, String anchor) throws IOException {
        String yaml = routes.read(file);
        Matcher steps = Pattern.compile(Pattern.quote(anchor) + "(?:.*\\n)*?( *)steps:\\n").matcher(yaml);
        assertThat(steps.find()).as("a steps: list after '%s' in %s", anchor.strip(), file).isTrue();
        String edited = yaml.substring(0, steps.end()) + steps.group(1) + "  - log: \"" + MARKER + "\"\n"
                + yaml.substring(steps.end());

        RouteWatcherReloadStrategy watcher = context.hasService(RouteWatcherReloadStrategy.class);
        assertThat(watcher).as("Camel Main's route reload is on").isNotNull();
        int reloads = watcher.getReloadCounter();
        int failures = watcher.getFailedCounter();
        routes.write(file, edited);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> watcher.getReloadCounter() + watcher.getFailedCounter() > reloads + failures);
        assertThat(watcher.getFailedCounter()).as("failed reloads, last: %s", watcher.lastErrorMessage()).isEqualTo(failures);
    }
}
