package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.pipeline.CapacityWait;
import dev.keypool.camel.pipeline.TenantGate;
import dev.keypool.tenant.Tenant;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batch lines use only the capacity up to the keys' reserve line (95 %), leave the reserve to interactive requests,
 * wait in their batch for the next minute's room (longer than {@code queue.maxWait}, 10 s here) rather than in the
 * gateway's line, and are charged to the tenant whose token created the batch; another tenant does not see it.
 */
class BatchCapacityTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                tenants:
                  - name: team-a
                    token: token-a
                  - name: team-b
                    token: token-b
                channels:
                  - name: primary
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-one
                        rpm: 40
                """;
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String token) throws Exception {
        return http.send(request.header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode batch(String id, String token) throws Exception {
        return JSON.readTree(send(HttpRequest.newBuilder(URI.create(url("/v1/batches/" + id))).GET(), token).body());
    }

    private int waiting() {
        return context.getRegistry().lookupByNameAndType("capacityWait", CapacityWait.class).queue().waiting();
    }

    /** How many of team-a's requests the gateway held back for its keys' capacity, from /observe/metrics. */
    private double heldBack() throws Exception {
        return requestsCounted("tenant=\"team-a\"", "outcome=\"quota_exhausted\"");
    }

    /** A batch of {@code lines} chat lines created with team-a's token; its id. */
    private String createBatch(int lines) throws Exception {
        String jsonl = String.join("\n", IntStream.range(0, lines).mapToObj(i -> BatchApiSdkTest.chatLine("b-" + i)).toList());
        String boundary = "b0undary";
        String multipart = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--" + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"in.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n"
                + jsonl + "\r\n--" + boundary + "--\r\n";
        HttpResponse<String> uploaded = send(HttpRequest.newBuilder(URI.create(url("/v1/files")))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(multipart, StandardCharsets.UTF_8)), "token-a");
        assertThat(uploaded.statusCode()).isEqualTo(200);
        String fileId = JSON.readTree(uploaded.body()).get("id").asText();
        HttpResponse<String> created = send(HttpRequest.newBuilder(URI.create(url("/v1/batches")))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"input_file_id\":\"" + fileId
                        + "\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\"}")), "token-a");
        assertThat(created.statusCode()).isEqualTo(200);
        return JSON.readTree(created.body()).get("id").asText();
    }

    @Test
    void should_leave_the_reserve_above_95_percent_to_interactive_requests() throws Exception {
        String id = createBatch(50);

        // 95 % of the key's 40 rpm: 38 lines, then the batch waits for the minute to pass
        await().atMost(Duration.ofSeconds(15)).until(() -> batch(id, "token-a").at("/request_counts/completed").asInt() == 38);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> upstream.hits("sk-one") == 38);
        // the other 12 wait in their batch for the room the minute frees (61 s away): none in the gateway's line,
        // and only the lines in flight when the first was held back (16 at most, batch.concurrency) were sent, through
        // the 5 rounds of half a second (batch.round-delay-ms: 100 here)
        await().atMost(Duration.ofSeconds(5)).until(() -> heldBack() > 0);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> heldBack() <= 16);
        assertThat(waiting()).isZero();
        assertThat(batch(id, "token-a").get("status").asText()).isEqualTo("in_progress");

        // the reserve, the rest of the minute's room, is the interactive requests'
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> interactive = send(HttpRequest.newBuilder(URI.create(url("/v1/chat/completions")))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(chatBody("gpt-test"))), "token-b");
            assertThat(interactive.statusCode()).isEqualTo(200);
        }
        assertThat(upstream.hits("sk-one")).isEqualTo(40);

        clock.advance(Duration.ofSeconds(61));
        JsonNode done = await().atMost(Duration.ofSeconds(15)).until(() -> batch(id, "token-a"),
                b -> b.get("status").asText().equals("completed"));
        assertThat(done.at("/request_counts/completed").asInt()).isEqualTo(50);

        // charged to team-a, whose token created it; team-b sees no such batch
        Tenant teamA = context.getRegistry().lookupByNameAndType("tenantGate", TenantGate.class).tenants().named("team-a").orElseThrow();
        assertThat(teamA.usage().borrowed().requests()).isEqualTo(50);
        assertThat(send(HttpRequest.newBuilder(URI.create(url("/v1/batches/" + id))).GET(), "token-b").statusCode()).isEqualTo(404);
        assertThat(send(HttpRequest.newBuilder(URI.create(url("/v1/batches/" + id))).GET(), "wrong").statusCode()).isEqualTo(401);
    }

    @Test
    void should_give_no_result_to_the_lines_waiting_for_room_when_the_gateway_stops() throws Exception {
        String id = createBatch(50);
        await().atMost(Duration.ofSeconds(15)).until(() -> batch(id, "token-a").at("/request_counts/completed").asInt() == 38
                && heldBack() > 0);
        Path journal = Path.of(context.resolvePropertyPlaceholders("{{state.dir}}"), "batch", "batches", id + ".journal.jsonl");

        context.getShutdownStrategy().setTimeout(1);
        context.stop();

        // the 12 lines waiting for room are not failed: without a result, they run when the gateway starts again
        List<String> results = Files.readAllLines(journal);
        assertThat(results).hasSize(38);
        assertThat(results).allSatisfy(line -> assertThat(JSON.readTree(line).get("ok").asBoolean()).isTrue());
    }
}
