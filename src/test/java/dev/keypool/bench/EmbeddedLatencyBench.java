package dev.keypool.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import dev.keypool.component.KeyPoolComponent;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.ListeningSockets;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/**
 * Not part of the suite (its name matches none of Surefire's test patterns): one host CamelContext with the keypool
 * component and its HTTP API on, one fake provider on loopback; alternately a {@code keypool:chat} call and the same
 * request over HTTP to the same pipeline, sequentially, three rounds of 3,000 each; prints p50/p99 per round.
 * {@code mvn -o test -Dtest=EmbeddedLatencyBench -Dsurefire.failIfNoSpecifiedTests=false}
 */
class EmbeddedLatencyBench {

    private static final int CALLS = 3000;

    @Test
    void keypool_chat_against_http() throws Exception {
        try (FakeUpstream upstream = new FakeUpstream().keepRequests(false)) {
            Path config = Files.createTempFile("keypool-bench-", ".yaml");
            Files.writeString(config, "channels:\n  - name: main\n    baseUrl: " + upstream.baseUrl()
                    + "\n    models: [m]\n    keys:\n      - key: sk-1\n      - key: sk-2\n");
            CamelContext host = new DefaultCamelContext();
            host.getPropertiesComponent().addInitialProperty("state.dir", Files.createTempDirectory("keypool-state-").toString());
            KeyPoolComponent keypool = host.getComponent("keypool", KeyPoolComponent.class);
            keypool.setConfig(config.toString());
            int port = ListeningSockets.freePort();
            keypool.setHttpEnabled(true);
            keypool.setHttpPort(port);
            host.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:ask").to("keypool:chat");
                }
            });
            host.start();
            String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
            ProducerTemplate template = host.createProducerTemplate();
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
            for (int round = 1; round <= 3; round++) {
                long[] embedded = new long[CALLS];
                long[] overHttp = new long[CALLS];
                for (int i = 0; i < CALLS; i++) {
                    long start = System.nanoTime();
                    template.requestBody("direct:ask", body, String.class);
                    embedded[i] = System.nanoTime() - start;
                    start = System.nanoTime();
                    http.send(request, HttpResponse.BodyHandlers.ofString());
                    overHttp[i] = System.nanoTime() - start;
                }
                Arrays.sort(embedded);
                Arrays.sort(overHttp);
                System.out.printf("round %d: keypool:chat p50 %.3f ms p99 %.3f ms | HTTP p50 %.3f ms p99 %.3f ms%n", round,
                        embedded[CALLS / 2] / 1e6, embedded[CALLS * 99 / 100] / 1e6, overHttp[CALLS / 2] / 1e6,
                        overHttp[CALLS * 99 / 100] / 1e6);
            }
            host.stop();
        }
    }
}
