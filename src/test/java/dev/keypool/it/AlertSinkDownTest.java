package dev.keypool.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.keypool.testing.FreePorts;
import dev.keypool.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sinks that are dead (one accepts and never answers, one refuses connections) slow neither the requests that raise
 * alerts nor the sink that works: each sink has its own queue and route.
 */
class AlertSinkDownTest extends GatewayTestSupport {

    /** How long the hanging sink's call may wait for an answer: far above what a request may take here. */
    private static final long SINK_TIMEOUT_MS = 20_000;

    private final SilentServer hanging = new SilentServer();
    private final WebhookReceiver working = new WebhookReceiver();
    private final int refusing = FreePorts.next();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                      - key: sk-alpha-2
                      - key: sk-alpha-3
                      - key: sk-alpha-4
                alerts:
                  sinks: ["HANGING", "http://127.0.0.1:REFUSING/hook", "WORKING"]
                """.replace("HANGING", "http://127.0.0.1:" + hanging.port() + "/hook?responseTimeout=" + SINK_TIMEOUT_MS)
                .replace("REFUSING", String.valueOf(refusing))
                .replace("WORKING", working.url("/hook"));
    }

    /** Accepts connections and never answers on them, until closed. */
    private static final class SilentServer implements AutoCloseable {
        private final ServerSocket socket;
        private final List<Socket> held = new CopyOnWriteArrayList<>();

        SilentServer() {
            try {
                socket = new ServerSocket(FreePorts.next(), 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            Thread accepting = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        held.add(socket.accept());
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "silent-sink");
            accepting.setDaemon(true);
            accepting.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        int accepted() {
            return held.size();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            for (Socket s : held) {
                s.close();
            }
        }
    }

    /** The hanging sink's call and the alerts queued behind it are given up at the stop, not waited for (10 s). */
    @BeforeEach
    void stopWithoutWaitingForTheHangingSink() {
        context.getShutdownStrategy().setTimeout(1);
    }

    @AfterEach
    void closeSinks() throws IOException {
        hanging.close();
        working.close();
    }

    @Test
    void should_answer_requests_at_once_while_sinks_hang_or_refuse() throws Exception {
        // each request meets one rejecting key, which is disabled: one alert per request, to each sink
        for (String key : List.of("sk-alpha-1", "sk-alpha-2", "sk-alpha-3")) {
            upstream.answer(key, 401);
        }
        List<Long> millis = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
            millis.add((System.nanoTime() - start) / 1_000_000);
            // the hanging sink holds the first alert from now on
            await().atMost(Duration.ofSeconds(10)).until(() -> hanging.accepted() > 0);
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> working.received().size() == 3);
        assertThat(hanging.accepted()).isEqualTo(1);
        assertThat(millis).allSatisfy(ms -> assertThat(ms).isLessThan(SINK_TIMEOUT_MS / 4));
        await().atMost(Duration.ofSeconds(10)).until(() ->
                get("/observe/metrics").body().lines().anyMatch(line ->
                        line.startsWith("keypool_alert_sink_failures_total{sink=\"1-http\"") && line.endsWith(" 3.0")));
    }
}
