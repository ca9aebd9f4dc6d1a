package dev.keypool.it;

import java.lang.management.ManagementFactory;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.camel.component.http.HttpComponent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a start leaves out as shipped (bench/README.md, Cold start): MBeans for the routes, their endpoints and their
 * processors but the breakers, and the alert webhooks' connection pool on a gateway without a webhook sink.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StartWorkTest extends GatewayTestSupport {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    StartWorkTest() {
        // Camel's test support turns JMX off unless asked
        testConfiguration().withEnableJMX();
    }

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                """;
    }

    @Test
    void should_register_mbeans_for_the_context_and_the_breakers_only() throws Exception {
        String camel = "org.apache.camel:context=" + context.getManagementName() + ",";

        assertThat(server.queryNames(new ObjectName(camel + "type=context,*"), null)).hasSize(1);
        assertThat(server.queryNames(new ObjectName(camel + "type=processors,*"), null))
                .extracting(name -> name.getKeyProperty("name")).containsExactly("\"alpha-breaker\"");
        for (String type : new String[] {"routes", "endpoints"}) {
            assertThat(server.queryNames(new ObjectName(camel + "type=" + type + ",*"), null)).as(type).isEmpty();
        }
        assertThat(server.queryNames(new ObjectName("org.apache.logging.log4j2:*"), null)).as("log4j's").isEmpty();
    }

    @Test
    void should_make_no_webhook_connection_pool_without_a_webhook_sink() throws Exception {
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);

        HttpComponent http = context.getComponent("http", HttpComponent.class);
        assertThat(http.getClientConnectionManager()).isNull();
    }
}
