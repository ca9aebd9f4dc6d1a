package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.List;

import dev.keypool.testing.ProviderCallThreads;
import org.apache.camel.CamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static dev.keypool.testing.ProviderCallThreads.EVENT_LOOP;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stream's provider call is answered on the event loop that received its first bytes, where the relay writes the
 * first event, once whole; the rest of the stream goes on on the relay's own thread. The
 * tests share one gateway, each on a channel of its own; the thread of each answer is the one Camel hears it on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamFirstEventTest extends GatewayTestSupport {

    private ProviderCallThreads calls;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: whole
                    baseUrl: UPSTREAM
                    models: [gpt-whole]
                    keys:
                      - key: sk-whole
                  - name: split
                    baseUrl: UPSTREAM
                    models: [gpt-split]
                    keys:
                      - key: sk-split
                  - name: faulty
                    baseUrl: UPSTREAM
                    models: [gpt-faulty]
                    keys:
                      - key: sk-faulty
                admin:
                  token: admin-secret
                """;
    }

    @Override
    protected CamelContext createCamelContext() throws Exception {
        CamelContext context = super.createCamelContext();
        calls = ProviderCallThreads.watch(context);
        return context;
    }

    @Test
    void should_go_on_to_the_relay_on_the_event_loop_that_received_the_first_event() throws Exception {
        upstream.streamEvents(3, 20);

        HttpResponse<String> answer = chatStream("gpt-whole");

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body().lines().filter(l -> l.startsWith("data:")).toList()).hasSize(4)
                .last().isEqualTo("data: [DONE]");
        assertThat(calls.answeredOn("sk-whole")).singleElement().asString().startsWith(EVENT_LOOP);
    }

    @Test
    void should_relay_a_first_event_that_comes_in_many_chunks() throws Exception {
        // a first event of 256 KiB comes in many chunks: the event loop waits for the rest of it, holding no thread
        upstream.hugeEvent("sk-split", 0, 256 * 1024);

        HttpResponse<String> answer = chatStream("gpt-split");

        assertThat(answer.statusCode()).isEqualTo(200);
        List<String> data = answer.body().lines().filter(l -> l.startsWith("data:")).toList();
        assertThat(data.get(0)).hasSize("data: ".length() + 256 * 1024);
        assertThat(data).last().isEqualTo("data: [DONE]");
        assertThat(answer.body()).doesNotContain("error");
    }

    @Test
    void should_read_a_stream_sent_from_another_thread_on_the_event_loop_that_read_its_request() throws Exception {
        upstream.streamEvents(3, 0);
        // a fault in force sends the call from a request thread (its delay waits there)
        HttpResponse<String> added = adminRequest("admin-secret", "POST", "/admin/faults",
                "{\"channel\":\"faulty\",\"kind\":\"latency\",\"latencyMs\":1,\"duration\":\"60s\"}");
        assertThat(added.statusCode()).isEqualTo(201);
        String id = added.body().replaceAll("(?s).*\"id\":\"([^\"]+)\".*", "$1");
        try {
            for (int i = 0; i < 6; i++) {
                HttpResponse<String> answer = chatStream("gpt-faulty");
                assertThat(answer.statusCode()).isEqualTo(200);
                assertThat(answer.body().lines().filter(l -> l.startsWith("data:")).toList()).last()
                        .isEqualTo("data: [DONE]");
            }
        } finally {
            // the other tests' calls stay on their event loop
            assertThat(adminRequest("admin-secret", "DELETE", "/admin/faults/" + id, null).statusCode()).isEqualTo(200);
        }

        assertThat(calls.sentFrom("sk-faulty")).hasSize(6).allSatisfy(t -> assertThat(t).doesNotStartWith(EVENT_LOOP));
        // its head and first event read, and the first event written, on the loop of its request, whichever thread sent it
        assertThat(calls.answeredOnRequestLoop("sk-faulty")).hasSize(6).containsOnly(true);
    }
}
