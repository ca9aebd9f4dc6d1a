package dev.keypool.it;

import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A channel's breaker over JMX, as Camel's own processors are: its step's MBean shows the state, and the figures and
 * the settings as one composite each; an operator forcing it OPEN sends the channel's requests to the fallback until
 * forcing it CLOSED.
 */
class BreakerJmxTest extends GatewayTestSupport {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    BreakerJmxTest() {
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
                    fallback: [beta]
                    breaker:
                      halfOpenRequests: 2
                      halfOpenSuccess: 2
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [gpt-beta]
                    keys:
                      - key: sk-beta-1
                """;
    }

    @Test
    void should_show_the_breaker_and_force_it_open_and_closed_over_jmx() throws Exception {
        ObjectName alpha = breakerMBean("alpha");
        assertThat(server.getAttribute(alpha, "CircuitBreakerState")).isEqualTo("CLOSED");
        assertThat(item(alpha, "Settings", "halfOpenRequests")).isEqualTo(2);
        assertThat(chat("gpt-test").headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        assertThat(item(alpha, "Figures", "callsInWindow")).isEqualTo(1L);
        assertThat(item(alpha, "Figures", "trippedBy")).isEqualTo("");

        server.invoke(alpha, "forceOpen", new Object[] {"provider maintenance"}, new String[] {String.class.getName()});

        assertThat(server.getAttribute(alpha, "CircuitBreakerState")).isEqualTo("OPEN");
        assertThat(item(alpha, "Figures", "state")).isEqualTo("OPEN");
        assertThat(item(alpha, "Figures", "trippedBy")).isEqualTo("operator: provider maintenance");
        HttpResponse<String> walked = chat("gpt-test");
        assertThat(walked.statusCode()).isEqualTo(200);
        assertThat(walked.headers().firstValue("X-KeyPool-Channel")).contains("beta");
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(1);

        server.invoke(alpha, "forceClosed", new Object[0], new String[0]);

        assertThat(server.getAttribute(alpha, "CircuitBreakerState")).isEqualTo("CLOSED");
        assertThat(chat("gpt-test").headers().firstValue("X-KeyPool-Channel")).contains("alpha");
        assertThat(upstream.hits("sk-alpha-1")).isEqualTo(2);
    }

    /** One item of a composite attribute, as a JMX console reads it. */
    private Object item(ObjectName mbean, String attribute, String item) throws Exception {
        return ((CompositeData) server.getAttribute(mbean, attribute)).get(item);
    }

    private ObjectName breakerMBean(String channel) throws Exception {
        // this gateway's context only: another test's gateway may share the JVM's MBean server
        Set<ObjectName> found = server.queryNames(new ObjectName("org.apache.camel:context="
                + context.getManagementName() + ",type=processors,name=\"" + channel + "-breaker\",*"), null);
        assertThat(found).as("the breaker step's MBean of channel " + channel).hasSize(1);
        return found.iterator().next();
    }
}
