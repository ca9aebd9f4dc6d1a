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
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A batch whose channel has no key capacity left waits for it in the batch, holding no batch thread: with two batch
 * threads, another tenant's batch on another channel completes meanwhile, the waiting batch sends no line until its
 * room comes (a line is not swept each second), and then completes.
 */
class BatchCapacityRestTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BATCH_THREADS = 2;

    @Override
    protected String keypoolYaml() {
        // 95 % of 4 rpm: three batch lines a minute on channel-a
        return """
                tenants:
                  - name: team-a
                    token: token-a
                  - name: team-b
                    token: token-b
                channels:
                  - name: channel-a
                    baseUrl: UPSTREAM
                    models: [gpt-a]
                    keys:
                      - key: sk-a
                        rpm: 4
                  - name: channel-b
                    baseUrl: UPSTREAM
                    models: [gpt-b]
                    keys:
                      - key: sk-b
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("batch.concurrency", String.valueOf(BATCH_THREADS));
        return p;
    }

    @Test
    void should_complete_another_tenants_batch_while_a_batch_waits_for_its_channels_capacity() throws Exception {
        String waiting = createBatch("gpt-a", 6, "token-a");
        // the minute's 3 lines; the other 3 wait for the next minute's room
        await().atMost(Duration.ofSeconds(10)).until(() -> batch(waiting, "token-a").at("/request_counts/completed").asInt() == 3);

        String other = createBatch("gpt-b", 4, "token-b");

        JsonNode done = await().atMost(Duration.ofSeconds(5)).until(() -> batch(other, "token-b"),
                b -> b.get("status").asText().equals("completed"));
        assertThat(done.at("/request_counts/completed").asInt()).isEqualTo(4);
        // the waiting batch rests until its room: refused only the lines in flight when its first was held back (one
        // per batch thread, and the one the splitter had already promised), and none after that: none in the 5 rounds of
        // half a second (batch.round-delay-ms: 100 here)
        double settled = refused("team-a");
        assertThat(settled).isBetween(1.0, BATCH_THREADS + 1.0);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> refused("team-a") == settled);
        assertThat(batch(waiting, "token-a").get("status").asText()).isEqualTo("in_progress");
        assertThat(upstream.hits("sk-a")).isEqualTo(3);

        clock.advance(Duration.ofSeconds(61));
        JsonNode waited = await().atMost(Duration.ofSeconds(10)).until(() -> batch(waiting, "token-a"),
                b -> b.get("status").asText().equals("completed"));
        assertThat(waited.at("/request_counts/completed").asInt()).isEqualTo(6);
        assertThat(upstream.hits("sk-a")).isEqualTo(6);
    }

    /** How many of this tenant's requests the gateway held back for its keys' capacity, from /observe/metrics. */
    private double refused(String tenant) throws Exception {
        return requestsCounted("tenant=\"" + tenant + "\"", "outcome=\"quota_exhausted\"");
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String token) throws Exception {
        return http.send(request.header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode batch(String id, String token) throws Exception {
        return JSON.readTree(send(HttpRequest.newBuilder(URI.create(url("/v1/batches/" + id))).GET(), token).body());
    }

    /** A batch of {@code lines} chat lines for {@code model}, created with this token; its id. */
    private String createBatch(String model, int lines, String token) throws Exception {
        String jsonl = String.join("\n", IntStream.range(0, lines).mapToObj(i -> "{\"custom_id\":\"" + model + "-" + i
                + "\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":" + chatBody(model) + "}").toList());
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
