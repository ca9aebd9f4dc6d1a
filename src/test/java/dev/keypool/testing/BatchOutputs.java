package dev.keypool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nothing lost, nothing paid twice (design §12), as the tests that stop or kill gateways mid-batch check it: the
 * output has exactly one answer per input line, matched by {@code custom_id}, and only the lines in flight at a kill
 * reached the provider twice. The lines' first message is their custom_id, so that the provider's calls name them.
 */
public final class BatchOutputs {

    private static final ObjectMapper JSON = new ObjectMapper();

    private BatchOutputs() {
    }

    /**
     * Asserts that {@code jsonl} (an output file) has exactly one line per custom_id of {@code customIds} and no other,
     * each a 200 answer; returns the lines by custom_id.
     */
    public static Map<String, JsonNode> assertOneAnswerPerLine(String jsonl, Collection<String> customIds) {
        Map<String, JsonNode> byCustomId = new LinkedHashMap<>();
        jsonl.lines().filter(line -> !line.isBlank()).forEach(line -> {
            JsonNode record = read(line);
            String customId = record.path("custom_id").asText();
            assertThat(byCustomId.put(customId, record)).as("a second output line of %s", customId).isNull();
            assertThat(record.at("/response/status_code").asInt()).as("the answer to %s", customId).isEqualTo(200);
        });
        assertThat(byCustomId.keySet()).containsExactlyInAnyOrderElementsOf(customIds);
        return byCustomId;
    }

    /** The custom_ids of the batch's lines with a result (a checkpoint) in the shared database. */
    public static Set<String> checkpointed(PostgresServer database, String batchId) {
        Set<String> customIds = new HashSet<>();
        for (String record : database.column("SELECT record FROM batch_results WHERE batch_id = ?", batchId)) {
            customIds.add(read(record).path("custom_id").asText());
        }
        return customIds;
    }

    /** The provider's chat calls per first message: per batch line (its custom_id), or per task (its marker). */
    public static Map<String, Integer> callsByContent(FakeUpstream upstream) {
        Map<String, Integer> calls = new HashMap<>();
        for (FakeUpstream.Received received : upstream.received()) {
            if (received.path().endsWith("/chat/completions")) {
                calls.merge(read(received.body()).at("/messages/0/content").asText(), 1, Integer::sum);
            }
        }
        return calls;
    }

    /**
     * Asserts that each of {@code customIds} reached the provider once, or twice when it was in flight at a kill: the
     * lines checkpointed before it ({@code beforeKill}) once, and at most {@code inFlight} lines (batch.concurrency)
     * twice.
     */
    public static void assertSentOnceBesidesInFlight(FakeUpstream upstream, Collection<String> customIds,
                                                     Set<String> beforeKill, int inFlight) {
        Map<String, Integer> calls = callsByContent(upstream);
        for (String customId : customIds) {
            assertThat(calls.get(customId)).as("provider calls of %s", customId).isBetween(1, 2);
        }
        for (String customId : beforeKill) {
            assertThat(calls.get(customId)).as("provider calls of %s, checkpointed before the kill", customId).isEqualTo(1);
        }
        assertThat(customIds.stream().filter(id -> calls.get(id) > 1).count()).as("lines sent twice").isLessThanOrEqualTo(inFlight);
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
