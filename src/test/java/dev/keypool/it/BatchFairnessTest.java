package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batches are fair across tenants: a batch whose tenant is at its own limits (here its requests per day) waits for
 * them without holding another tenant's batch, which runs and completes meanwhile.
 */
class BatchFairnessTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** batch.concurrency: the most lines a batch has in flight when its first is refused. */
    private static final int BATCH_THREADS = 4;

    @Override
    protected String keypoolYaml() {
        return """
                tenants:
                  - name: team-a
                    token: token-a
                    rpd: 3
                  - name: team-b
                    token: token-b
                channels:
                  - name: primary
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-one
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("batch.concurrency", String.valueOf(BATCH_THREADS));
        return p;
    }

    /** team-a's batch still waits at the end: it is left to its journal, the stop need not wait the whole timeout. */
    @BeforeEach
    void stopWithoutWaitingForTheBatch() {
        context.getShutdownStrategy().setTimeout(1);
    }

    @Test
    void should_complete_a_tenants_batch_while_another_tenants_batch_waits_for_its_daily_limit() throws Exception {
        String waiting = createBatch("a", 6, "token-a");
        // team-a's 3 requests of the day are spent, and its batch goes on waiting for the next day
        await().atMost(Duration.ofSeconds(10)).until(() -> batch(waiting, "token-a").at("/request_counts/completed").asInt() == 3);

        String other = createBatch("b", 5, "token-b");

        JsonNode done = await().atMost(Duration.ofSeconds(10)).until(() -> batch(other, "token-b"),
                b -> b.get("status").asText().equals("completed"));
        assertThat(done.at("/request_counts/completed").asInt()).isEqualTo(5);
        JsonNode stillWaiting = batch(waiting, "token-a");
        assertThat(stillWaiting.get("status").asText()).isEqualTo("in_progress");
        assertThat(stillWaiting.at("/request_counts/completed").asInt()).isEqualTo(3);
        assertThat(upstream.hits("sk-one")).isEqualTo(8);
    }

    @Test
    void should_send_no_line_of_a_batch_whose_tenant_is_at_its_daily_limit_until_the_limit_resets() throws Exception {
        // noon: the tenant's day ends at midnight, the batch's 24 h window at noon the next day
        clock.advance(Duration.ofHours(12));
        String id = createBatch("a", 40, "token-a");
        await().atMost(Duration.ofSeconds(10)).until(() -> batch(id, "token-a").at("/request_counts/completed").asInt() == 3
                && refused("team-a") > 0);

        // rounds come every 100 ms here (batch.round-delay-ms); the batch rests until the Retry-After of its first
        // refused line: the lines in flight then (batch.concurrency at most) were refused, no other line is sent in
        // the 5 rounds of half a second
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> refused("team-a") <= BATCH_THREADS);
        assertThat(upstream.hits("sk-one")).isEqualTo(3);

        // the next day, the next 3
        clock.advance(Duration.ofHours(13));
        await().atMost(Duration.ofSeconds(10)).until(() -> batch(id, "token-a").at("/request_counts/completed").asInt() == 6);
        assertThat(batch(id, "token-a").get("status").asText()).isEqualTo("in_progress");
    }

    /** How many of this tenant's requests were refused for its limits, from /observe/metrics. */
    private double refused(String tenant) throws Exception {
        return requestsCounted("tenant=\"" + tenant + "\"", "outcome=\"tenant_rate_limited\"");
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String token) throws Exception {
        return http.send(request.header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode batch(String id, String token) throws Exception {
        return JSON.readTree(send(HttpRequest.newBuilder(URI.create(url("/v1/batches/" + id))).GET(), token).body());
    }

    /** A batch of {@code lines} chat lines created with this token; its id. */
    private String createBatch(String prefix, int lines, String token) throws Exception {
        String jsonl = String.join("\n", IntStream.range(0, lines).mapToObj(i -> BatchApiSdkTest.chatLine(prefix + "-" + i)).toList());
        String boundary = "b0undary";
        String multipart = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--" + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"in.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n"
                + jsonl + "\r\n--" + boundary + "--\r\n";
        HttpResponse<String> uploaded = send(HttpRequest.newBuilder(URI.create(url("/v1/files")))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(multipart, StandardCharsets.UTF_8)), token);
        assertThat(uploaded.statusCode()).isEqualTo(200);
        String fileId = JSON.readTree(uploaded.body()).get("id").asText();
        HttpResponse<String> created = send(HttpRequest.newBuilder(URI.create(url("/v1/batches")))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"input_file_id\":\"" + fileId
                        + "\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\"}")), token);
        assertThat(created.statusCode()).isEqualTo(200);
        return JSON.readTree(created.body()).get("id").asText();
    }
}
