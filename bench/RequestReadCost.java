import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.gateway.UpstreamBody;

/**
 * A chat stream's read in one JVM, as RequestPlanner does it: the body's tree, then its UpstreamBody with the stream's
 * usage asked for; beside it the tree alone and a streaming read of the top-level fields the planner checks (what a
 * read without the tree would cost). Two bodies: the benchmarks' (81 B) and a 12-message conversation (4.9 KB). Run
 * against a build's classes, e.g. two builds one after the other:
 * {@code java -XX:+UseParallelGC -cp "target/lib/*:target/classes" bench/RequestReadCost.java}.
 */
public class RequestReadCost {

    private static final ObjectMapper MAPPER = new ObjectMapper(
            JsonFactory.builder().recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool()).build());
    private static long sink;

    public static void main(String[] args) throws Exception {
        byte[] small = "{\"model\":\"bench-model\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
                .getBytes(StandardCharsets.UTF_8);
        StringBuilder conversation = new StringBuilder("{\"model\":\"gpt-4o-mini\",\"stream\":true,\"messages\":[");
        for (int i = 0; i < 12; i++) {
            conversation.append(i == 0 ? "" : ",").append("{\"role\":\"").append(i % 2 == 0 ? "user" : "assistant")
                    .append("\",\"content\":\"").append("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed "
                            + "do eiusmod tempor incididunt ut labore et dolore magna aliqua. ".repeat(3)).append("\"}");
        }
        byte[] large = conversation.append("]}").toString().getBytes(StandardCharsets.UTF_8);
        for (int round = 1; round <= 8; round++) {
            for (byte[] body : new byte[][] {small, large}) {
                int n = body == small ? 400_000 : 40_000;
                double read = time(body, n, RequestReadCost::read);
                double tree = time(body, n, RequestReadCost::tree);
                double fields = time(body, n, RequestReadCost::fields);
                if (round > 4) {   // the first four rounds warm the JIT
                    System.out.printf("round %d, %,d B: tree + UpstreamBody %.3f µs, tree %.3f µs, fields streamed %.3f µs%n",
                            round - 4, body.length, read, tree, fields);
                }
            }
        }
        System.out.println(sink == 42 ? "" : "done");   // the results used, so that no loop is compiled away
    }

    private interface Step {
        long run(byte[] body) throws Exception;
    }

    private static double time(byte[] body, int n, Step step) throws Exception {
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sink += step.run(body);
        }
        return (System.nanoTime() - start) / 1e3 / n;
    }

    private static long read(byte[] body) throws Exception {
        ObjectNode json = (ObjectNode) MAPPER.readTree(body);
        return new UpstreamBody(MAPPER, body, json, true).forModel(json.get("model").asText()).length;
    }

    private static long tree(byte[] body) throws Exception {
        return MAPPER.readTree(body).size();
    }

    /** model, messages, input, stream and stream_options read from the tokens; everything else skipped. */
    private static long fields(byte[] body) throws Exception {
        long seen = 0;
        try (JsonParser parser = MAPPER.getFactory().createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalStateException("not an object");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (name.equals("model") && value == JsonToken.VALUE_STRING) {
                    seen += parser.getText().length();
                } else if (name.equals("messages") && value == JsonToken.START_ARRAY) {
                    while (parser.nextToken() != JsonToken.END_ARRAY) {   // counted: the planner wants one at least
                        seen++;
                        parser.skipChildren();
                    }
                } else if (value.isStructStart()) {
                    parser.skipChildren();
                } else {
                    seen++;
                }
            }
        }
        return seen;
    }
}
