package dev.keypool.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.translate.StreamTranslator;
import dev.keypool.translate.Translation;
import dev.keypool.translate.TranslationSettings;
import org.junit.jupiter.api.Test;

/**
 * Not part of the suite (its name matches none of Surefire's test patterns): what each step of a translated request
 * costs on the gateway's thread, in CPU nanoseconds per call over many calls after a warm-up, for the golden files of
 * src/test/resources/translate (a request of 1.3 KB with a system prompt, an image and a tool round trip; an answer with
 * a tool call; a stream of text and tool-call deltas). Each step is what the gateway does on top of a native request:
 * the request mapped and written ({@code Translations.prepare}), the answer read, mapped and written
 * ({@code Translations.answer}), each stream event read, mapped and written ({@code StreamRelay}). Thread CPU time, not
 * wall time: other processes on the machine slow it less. Prints the median of 5 rounds per step.
 * {@code mvn -o test -Dtest=TranslationStepsBench -Dsurefire.failIfNoSpecifiedTests=false}
 */
class TranslationStepsBench {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TranslationSettings SETTINGS = new TranslationSettings(4096);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int ROUNDS = 5;
    private static final long WARMUP_NANOS = 3_000_000_000L;
    private static final int CALLS = 50_000;

    private long sink;

    @Test
    void translation_steps() throws IOException {
        System.out.printf("translation steps, CPU ns per call, median of %d rounds of %,d calls after %d s of warm-up each"
                + " (%s, %d CPUs)%n", ROUNDS, CALLS, WARMUP_NANOS / 1_000_000_000, Runtime.version(),
                Runtime.getRuntime().availableProcessors());
        for (Translation translation : Translation.values()) {
            boolean anthropicClient = translation == Translation.ANTHROPIC_TO_OPENAI;
            String client = anthropicClient ? "anthropic" : "openai";
            String provider = anthropicClient ? "openai" : "anthropic";
            ObjectNode request = (ObjectNode) JSON.readTree(text(client + "-request.json"));
            byte[] answer = text(provider + "-answer.json").getBytes(StandardCharsets.UTF_8);
            List<byte[]> events = events(text(provider + "-stream.sse"));

            report(translation + " request (map + write)", () -> write(translation.request(request, SETTINGS)));
            report(translation + " answer (read + map + write)", () -> write(translation.answer(read(answer), 1700000000)));
            long perStream = measure(() -> {
                StreamTranslator translator = translation.stream(JSON, true, 1700000000);
                long bytes = 0;
                for (byte[] event : events) {
                    for (byte[] out : translator.translate(event)) {
                        bytes += out.length;
                    }
                }
                return bytes;
            });
            System.out.printf("  %-60s %,8d ns per event (%d events a stream, %,d ns a stream)%n",
                    translation + " stream event (read + map + write)", perStream / events.size(), events.size(), perStream);
        }
        System.out.println("(sink " + sink + ")");
    }

    private void report(String step, LongSupplier call) {
        System.out.printf("  %-60s %,8d ns%n", step, measure(call));
    }

    /** The median over the rounds of a round's CPU time per call, after a warm-up of its own. */
    private long measure(LongSupplier call) {
        long warmUntil = System.nanoTime() + WARMUP_NANOS;
        while (System.nanoTime() < warmUntil) {
            sink += call.getAsLong();
        }
        long[] perCall = new long[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            long start = THREADS.getCurrentThreadCpuTime();
            for (int i = 0; i < CALLS; i++) {
                sink += call.getAsLong();
            }
            perCall[round] = (THREADS.getCurrentThreadCpuTime() - start) / CALLS;
        }
        Arrays.sort(perCall);
        return perCall[ROUNDS / 2];
    }

    private static long write(JsonNode json) {
        try {
            return JSON.writeValueAsBytes(json).length;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode read(byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The whole events of a stream, as the relay hands them over. */
    private static List<byte[]> events(String sse) {
        List<byte[]> events = new ArrayList<>();
        for (String event : sse.split("\n\n")) {
            if (!event.isBlank()) {
                events.add((event + "\n\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return events;
    }

    private static String text(String file) throws IOException {
        try (InputStream in = TranslationStepsBench.class.getResourceAsStream("/translate/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
