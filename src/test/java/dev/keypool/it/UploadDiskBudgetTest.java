package dev.keypool.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;

import dev.keypool.testing.FirstAnswered;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Uploads spooled to disk are held to keypool.max-upload-bytes-on-disk, as bodies in the heap are to their budget:
 * while one client sends 900 kB of audio, another upload of 200 kB gets 503 {@code overloaded} from its headers,
 * before its body is read (or the other way round, as the event loops read them); a JSON request is not counted against the uploads' budget and goes on.
 */
class UploadDiskBudgetTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test, whisper-1]
                    keys:
                      - key: sk-alpha-1
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("keypool.max-upload-bytes-on-disk", "1000000");
        return p;
    }

    @Test
    void should_answer_503_when_uploads_on_disk_would_pass_their_budget() throws Exception {
        // 900 kB and 200 kB do not both fit: whichever upload an event loop reads second is refused at once
        try (Socket holder = headersOnly(900_000);
             Socket second = headersOnly(200_000)) {
            Socket refused = FirstAnswered.of(Duration.ofSeconds(5), holder, second);
            assertThat(statusLine(refused)).contains(" 503 ");
            assertThat(waitsForItsBody(refused == second ? holder : second)).isTrue();
            assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        }
        // given back once the first upload is gone: an upload of the same size is read again
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try (Socket again = headersOnly(200_000)) {
                return waitsForItsBody(again);
            }
        });
    }

    /** An audio upload whose headers are sent and whose body is not (yet). */
    private Socket headersOnly(long length) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5000);
        socket.getOutputStream().write(("POST /v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: " + length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    /** Whether the gateway says nothing (it reads the body) for half a second. */
    private static boolean waitsForItsBody(Socket socket) throws IOException {
        socket.setSoTimeout(500);
        try {
            socket.getInputStream().read();
            return false;
        } catch (SocketTimeoutException e) {
            return true;
        }
    }

    private static String statusLine(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            line.append((char) c);
        }
        return line.toString();
    }
}
