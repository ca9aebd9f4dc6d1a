package dev.keypool.it;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.GatewayProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An upload goes to disk as it arrives and is stored from there, never whole in the heap: a gateway in a 96 MiB heap
 * takes a 120 MB batch file through POST /v1/files. Read into the heap, as before, it ran out of memory.
 */
@Tag("slow")
class UploadOnDiskTest {

    private static final long FILE_BYTES = 120_000_000;
    private static final String BOUNDARY = "upload-on-disk";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private Process gateway;

    private Path root;

    @AfterEach
    void stop() throws Exception {
        if (gateway != null) {
            gateway.destroyForcibly().waitFor();
        }
        if (root != null) {
            // the stored file is as large as the upload
            try (var files = Files.walk(root)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @Test
    void should_store_an_upload_larger_than_the_heap() throws Exception {
        root = Files.createTempDirectory("keypool-upload-");
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: http://127.0.0.1:9/v1
                    models: [gpt-test]
                    keys:
                      - key: sk-upload-one
                """;
        int port = GatewayTestSupport.freePort();
        gateway = GatewayProcess.start(root, "gateway", yaml, port, List.of("-Xmx96m", "-XX:+UseSerialGC"),
                Map.of("batch.max-file-bytes", "200000000", "camel.server.max-body-size", "200000000",
                        "batch.max-stored-bytes", "400000000",
                        "batch.inbox", root.resolve("inbox").toString()));
        String base = "http://127.0.0.1:" + port;
        GatewayProcess.awaitStarted(port);

        byte[] head = ("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--" + BOUNDARY
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.jsonl\"\r\n"
                + "Content-Type: application/jsonl\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] tail = ("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII);
        HttpResponse<String> r;
        try {
            r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/files"))
                    .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                    .timeout(Duration.ofSeconds(120))
                    .POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(() ->
                            new SequenceInputStream(new ByteArrayInputStream(head), new SequenceInputStream(lines(FILE_BYTES),
                                    new ByteArrayInputStream(tail)))), head.length + FILE_BYTES + tail.length))
                    .build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            // keep what the gateway was doing: its files go with root
            throw new AssertionError("no answer in 120 s; the gateway's threads and log:\n" + threadsAndLog(), e);
        }

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode file = new ObjectMapper().readTree(r.body());
        assertThat(file.path("bytes").asLong()).isEqualTo(FILE_BYTES);
        assertThat(Files.size(root.resolve("state").resolve("batch").resolve("files").resolve(file.path("id").asText() + ".jsonl")))
                .isEqualTo(FILE_BYTES);
        assertThat(Files.readString(root.resolve("gateway.log"))).doesNotContain("OutOfMemoryError");
    }

    private String threadsAndLog() {
        StringBuilder out = new StringBuilder();
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    String.valueOf(gateway.pid()), "Thread.print").redirectErrorStream(true).start();
            out.append(new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            List<String> log = Files.readAllLines(root.resolve("gateway.log"));
            out.append(String.join("\n", log.subList(Math.max(0, log.size() - 80), log.size())));
        } catch (Exception e) {
            out.append("(could not read: ").append(e).append(')');
        }
        return out.toString();
    }

    /** {@code bytes} of JSON lines, made as they are read. */
    private static InputStream lines(long bytes) {
        byte[] line = "{\"custom_id\":\"r\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{}}\n"
                .getBytes(StandardCharsets.US_ASCII);
        return new InputStream() {
            private long left = bytes;

            @Override
            public int read() {
                return left-- > 0 ? line[(int) ((bytes - left - 1) % line.length)] : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left <= 0) {
                    return -1;
                }
                int n = (int) Math.min(len, left);
                for (int i = 0; i < n; i++) {
                    b[off + i] = line[(int) ((bytes - left + i) % line.length)];
                }
                left -= n;
                return n;
            }
        };
    }
}
