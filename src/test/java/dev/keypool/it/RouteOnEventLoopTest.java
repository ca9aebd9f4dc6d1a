package dev.keypool.it;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.keypool.camel.pipeline.CapacityWait;
import dev.keypool.testing.ProviderCallThreads;
import org.apache.camel.CamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static dev.keypool.testing.ProviderCallThreads.EVENT_LOOP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Without Redis, a request to an entry of the LLM APIs with a small JSON body runs its route up to the provider call on
 * the event loop that read it (no request thread woken); a large body starts on a request thread, and the steps that may
 * wait (the walk's wait for quota room, an injected fault) leave the event loop before they wait. The tests share one
 * gateway, each on a channel of its own; the thread of each call is the one Camel sends it from.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouteOnEventLoopTest extends GatewayTestSupport {

    private ProviderCallThreads calls;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: small
                    baseUrl: UPSTREAM
                    models: [gpt-small]
                    keys:
                      - key: sk-small
                  - name: large
                    baseUrl: UPSTREAM
                    models: [gpt-large]
                    keys:
                      - key: sk-large
                  - name: waits
                    baseUrl: UPSTREAM
                    models: [gpt-waits]
                    keys:
                      - key: sk-waits
                        rpm: 1
                  - name: faulty
                    baseUrl: UPSTREAM
                    models: [gpt-faulty]
                    keys:
                      - key: sk-faulty
                admin:
                  token: admin-secret
                queue:
                  maxWait: 90s
                  maxSize: 5
                """;
    }

    @Override
    protected CamelContext createCamelContext() throws Exception {
        CamelContext context = super.createCamelContext();
        calls = ProviderCallThreads.watch(context);
        return context;
    }

    @Test
    void should_send_a_small_request_from_the_event_loop_that_read_it() throws Exception {
        assertThat(chat("gpt-small").statusCode()).isEqualTo(200);

        assertThat(calls.sentFrom("sk-small")).singleElement().asString().startsWith(EVENT_LOOP);
    }

    @Test
    void should_start_a_request_of_a_large_body_on_a_request_thread() throws Exception {
        String prompt = "x".repeat(70 * 1024);
        HttpResponse<String> answer = post("/v1/chat/completions",
                "{\"model\":\"gpt-large\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}");

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(calls.sentFrom("sk-large")).singleElement().asString().doesNotStartWith(EVENT_LOOP);
    }

    @Test
    void should_wait_for_quota_room_on_a_request_thread() throws Exception {
        clock.set(Instant.parse("2026-12-03T10:00:00.500Z"));
        assertThat(chat("gpt-waits").statusCode()).isEqualTo(200);
        CompletableFuture<HttpResponse<String>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return chat("gpt-waits");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> capacityWait().queue().waiting() == 1);
        // the event loops go on serving while the request waits
        assertThat(chat("gpt-small").statusCode()).isEqualTo(200);

        clock.advance(Duration.ofSeconds(61));

        assertThat(waiting.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        List<String> threads = calls.sentFrom("sk-waits");
        assertThat(threads).hasSize(2);
        assertThat(threads.get(0)).startsWith(EVENT_LOOP);
        // the call after the wait is sent by the thread that waited
        assertThat(threads.get(1)).doesNotStartWith(EVENT_LOOP);
    }

    @Test
    void should_leave_the_event_loop_while_a_fault_is_in_force() throws Exception {
        HttpResponse<String> added = adminRequest("admin-secret", "POST", "/admin/faults",
                "{\"channel\":\"faulty\",\"kind\":\"latency\",\"latencyMs\":50,\"duration\":\"60s\"}");
        assertThat(added.statusCode()).isEqualTo(201);
        String id = added.body().replaceAll("(?s).*\"id\":\"([^\"]+)\".*", "$1");

        assertThat(chat("gpt-faulty").statusCode()).isEqualTo(200);
        assertThat(adminRequest("admin-secret", "DELETE", "/admin/faults/" + id, null).statusCode()).isEqualTo(200);
        assertThat(chat("gpt-faulty").statusCode()).isEqualTo(200);

        List<String> threads = calls.sentFrom("sk-faulty");
        assertThat(threads).hasSize(2);
        assertThat(threads.get(0)).doesNotStartWith(EVENT_LOOP);
        assertThat(threads.get(1)).startsWith(EVENT_LOOP);
    }

    private CapacityWait capacityWait() {
        return context.getRegistry().lookupByNameAndType("capacityWait", CapacityWait.class);
    }
}
