package dev.keypool.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No slow client holds the server: a body that does not arrive within keypool.request-read-timeout-ms is answered 408
 * and its connection closed, and uploads that trickle in hold neither a request place nor a thread while they do.
 */
class SlowClientTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test, whisper-1]
                    apis: [chat, audio]
                    keys:
                      - key: sk-alpha-1
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.request-read-timeout-ms", "1500");
        p.put("keypool.max-in-flight", "10");
        return p;
    }

    @Test
    void should_answer_408_and_close_when_the_body_does_not_arrive_in_time() throws Exception {
        try (Socket slow = slowUpload("/v1/chat/completions", "application/json")) {
            slow.setSoTimeout(10_000);
            InputStream in = slow.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);   // up to the close
            assertThat(answer).startsWith("HTTP/1.1 408 ").contains("request_timeout");
        }
    }

    @Test
    void should_answer_a_normal_request_while_more_uploads_trickle_in_than_requests_may_be_in_flight() throws Exception {
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 30; i++) {
                slow.add(slowUpload("/v1/audio/transcriptions", "multipart/form-data; boundary=b"));
            }
            assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    /** Headers that announce 1,000 bytes, and one byte of them. */
    private Socket slowUpload(String path, String contentType) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.getOutputStream().write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + contentType
                + "\r\nContent-Length: 1000\r\n\r\n-").getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }
}
