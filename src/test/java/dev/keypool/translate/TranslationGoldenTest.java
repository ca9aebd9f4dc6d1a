package dev.keypool.translate;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.gateway.SseEventBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mapping in both directions against golden files under src/test/resources/translate: {@code <case>.json} (or
 * {@code .sse}) is what one side sends, {@code <case>.as-<other>.json} what the other side must get. JSON is compared
 * as trees (field order aside); streams event by event.
 */
class TranslationGoldenTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TranslationSettings SETTINGS = new TranslationSettings(4096);
    private static final long CREATED = 1700000000;

    @Test
    void should_write_an_anthropic_request_as_openai_chat() throws IOException {
        ObjectNode request = (ObjectNode) json("anthropic-request.json");

        assertThat(reread(Translation.ANTHROPIC_TO_OPENAI.request(request, SETTINGS))).isEqualTo(json("anthropic-request.as-openai.json"));
    }

    @Test
    void should_write_an_openai_chat_request_as_anthropic() throws IOException {
        ObjectNode request = (ObjectNode) json("openai-request.json");

        assertThat(reread(Translation.OPENAI_TO_ANTHROPIC.request(request, SETTINGS))).isEqualTo(json("openai-request.as-anthropic.json"));
    }

    @Test
    void should_write_an_openai_answer_as_an_anthropic_message() throws IOException {
        assertThat(reread(Translation.ANTHROPIC_TO_OPENAI.answer(json("openai-answer.json"), CREATED)))
                .isEqualTo(json("openai-answer.as-anthropic.json"));
    }

    @Test
    void should_write_an_anthropic_message_as_an_openai_answer() throws IOException {
        assertThat(reread(Translation.OPENAI_TO_ANTHROPIC.answer(json("anthropic-answer.json"), CREATED)))
                .isEqualTo(json("anthropic-answer.as-openai.json"));
    }

    @Test
    void should_write_an_openai_stream_as_anthropic_events() throws IOException {
        StreamTranslator translator = Translation.ANTHROPIC_TO_OPENAI.stream(JSON, false, CREATED);

        assertThat(events(feedWhole(translator, "openai-stream.sse"))).isEqualTo(events(text("openai-stream.as-anthropic.sse")));
    }

    @Test
    void should_write_an_anthropic_stream_as_openai_chunks() throws IOException {
        StreamTranslator translator = Translation.OPENAI_TO_ANTHROPIC.stream(JSON, true, CREATED);

        assertThat(events(feedWhole(translator, "anthropic-stream.sse"))).isEqualTo(events(text("anthropic-stream.as-openai.sse")));
    }

    /**
     * As the relay hands them: the provider's bytes in reads of any size, a UTF-8 character or a tool call's arguments
     * cut between two, made whole events by the relay's buffer before the translator sees them.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 7, 64})
    void should_translate_the_same_whatever_the_reads_cut(int readSize) throws IOException {
        byte[] bytes = text("openai-stream.sse").getBytes(StandardCharsets.UTF_8);
        StreamTranslator translator = Translation.ANTHROPIC_TO_OPENAI.stream(JSON, false, CREATED);
        SseEventBuffer buffer = new SseEventBuffer(1 << 20);
        StringBuilder out = new StringBuilder();
        for (int at = 0; at < bytes.length; at += readSize) {
            for (byte[] event : buffer.feed(bytes, at, Math.min(readSize, bytes.length - at))) {
                translator.translate(event).forEach(e -> out.append(new String(e, StandardCharsets.UTF_8)));
            }
        }

        assertThat(events(out.toString())).isEqualTo(events(text("openai-stream.as-anthropic.sse")));
    }

    /** Every whole event of the file, one at a time, as the relay feeds them. */
    private static String feedWhole(StreamTranslator translator, String file) throws IOException {
        StringBuilder out = new StringBuilder();
        for (String event : text(file).split("\n\n")) {
            if (!event.isBlank()) {
                translator.translate((event + "\n\n").getBytes(StandardCharsets.UTF_8))
                        .forEach(e -> out.append(new String(e, StandardCharsets.UTF_8)));
            }
        }
        return out.toString();
    }

    /** Each event as its name and its data (JSON read as a tree, or the text such as [DONE]). */
    private static List<List<Object>> events(String sse) throws IOException {
        List<List<Object>> events = new ArrayList<>();
        for (String event : sse.split("\n\n")) {
            if (event.isBlank()) {
                continue;
            }
            Sse parsed = Sse.parse(event.getBytes(StandardCharsets.UTF_8));
            JsonNode data = parsed.json(JSON);
            events.add(List.of(String.valueOf(parsed.name()), data != null ? data : String.valueOf(parsed.data())));
        }
        return events;
    }

    /** As the other side reads it: numbers compared by value, not by the Java type they were written from. */
    private static JsonNode reread(JsonNode written) throws IOException {
        return JSON.readTree(JSON.writeValueAsString(written));
    }

    private static JsonNode json(String file) throws IOException {
        return JSON.readTree(text(file));
    }

    private static String text(String file) throws IOException {
        try (InputStream in = TranslationGoldenTest.class.getResourceAsStream("/translate/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
