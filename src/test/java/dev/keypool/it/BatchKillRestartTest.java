package dev.keypool.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.testing.BatchOutputs;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Nothing lost, nothing paid twice (design §12): a gateway process killed with SIGKILL in the middle of a 1,000-line
 * inbox batch, and started again, finishes it with exactly one output line per input line, and no line whose result
 * had been checkpointed before the kill is sent upstream again.
 */
@Tag("slow")
class BatchKillRestartTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int LINES = 1000;
    private static final int CONCURRENCY = 8;

    private final FakeUpstream upstream = new FakeUpstream().delayAll(40);
    private final List<Process> gateways = new ArrayList<>();

    @AfterEach
    void stop() {
        gateways.forEach(Process::destroyForcibly);
        upstream.close();
    }

    @Test
    void should_finish_a_killed_batch_after_a_restart_without_losing_or_repeating_a_checkpointed_line() throws Exception {
        Path root = Files.createTempDirectory("keypool-kill-");
        String yaml = """
                channels:
                  - name: primary
                    baseUrl: %s
                    models: [gpt-test]
                    keys:
                      - key: sk-one
                      - key: sk-two
                """.formatted(upstream.baseUrl());
        Path inbox = root.resolve("inbox");
        Path outbox = root.resolve("outbox");
        Path state = root.resolve("state");   // where GatewayProcess has the gateway keep its state
        Files.createDirectories(inbox);
        Path tmp = root.resolve("big.tmp");
        List<String> customIds = IntStream.range(0, LINES).mapToObj(i -> "line-" + i).toList();
        Files.write(tmp, customIds.stream().map(BatchApiSdkTest::chatLine).toList());

        Process first = start(root, yaml, inbox, outbox, "first");
        Files.move(tmp, inbox.resolve("big.jsonl"), StandardCopyOption.ATOMIC_MOVE);
        // a few hundred lines in, kill -9: no shutdown hook, no last write
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> checkpointed(state).size() >= 300);
        first.destroyForcibly().waitFor();
        Set<String> beforeKill = checkpointed(state);
        assertThat(beforeKill.size()).isBetween(300, LINES - 1);
        assertThat(outbox.resolve("big.output.jsonl")).doesNotExist();

        start(root, yaml, inbox, outbox, "second");
        Path output = outbox.resolve("big.output.jsonl");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(output));

        BatchOutputs.assertOneAnswerPerLine(Files.readString(output), customIds);
        // only the lines in flight at the kill may have gone out twice
        BatchOutputs.assertSentOnceBesidesInFlight(upstream, customIds, beforeKill, CONCURRENCY);
        assertThat(upstream.totalHits()).isLessThanOrEqualTo(LINES + CONCURRENCY);
    }

    /** The custom_ids whose results the batch journals hold (a line cut by the kill is not one). */
    private static Set<String> checkpointed(Path state) throws IOException {
        Path batches = state.resolve("batch").resolve("batches");
        if (!Files.isDirectory(batches)) {
            return Set.of();
        }
        Set<String> ids = new HashSet<>();
        try (Stream<Path> files = Files.list(batches)) {
            for (Path journal : files.filter(f -> f.toString().endsWith(".journal.jsonl")).toList()) {
                for (String line : Files.readAllLines(journal)) {
                    try {
                        ids.add(JSON.readTree(line).at("/record/custom_id").asText());
                    } catch (IOException torn) {
                        // the last line, being written
                    }
                }
            }
        }
        return ids;
    }

    private Process start(Path root, String yaml, Path inbox, Path outbox, String name) throws IOException {
        Process process = GatewayProcess.start(root, name, yaml, GatewayTestSupport.freePort(), List.of("-Xmx384m"),
                Map.of("batch.inbox", inbox.toString(), "batch.outbox", outbox.toString(),
                        "batch.concurrency", String.valueOf(CONCURRENCY)));
        gateways.add(process);
        return process;
    }
}
