import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.main.Main;

/**
 * The least Camel Main app on the gateway's stack, as the floor of bench/coldstart.sh: Camel Main with Vert.x's
 * platform-http server (camel-platform-http-main) and one route that answers POST /v1/chat/completions with a constant
 * chat completion. No YAML, no beans, no upstream call: what a cold start of Camel Main itself costs on this machine.
 * Compiled against the gateway's own lib/ (bench/coldstart.sh):
 * {@code java -cp "target/bench-classes:target/lib/*" MinimalCamel PORT}.
 */
public class MinimalCamel {

    static final String ANSWER = "{\"id\":\"chatcmpl-floor\",\"object\":\"chat.completion\",\"model\":\"gpt-4o-mini\","
            + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"pong\"},"
            + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}";

    public static void main(String[] args) throws Exception {
        Main main = new Main();
        main.configure().httpServer().withEnabled(true).withHost("127.0.0.1").withPort(Integer.parseInt(args[0]));
        main.configure().addRoutesBuilder(new RouteBuilder() {
            @Override
            public void configure() {
                from("platform-http:/v1/chat/completions?httpMethodRestrict=POST")
                        .setHeader("Content-Type", constant("application/json"))
                        .setBody(constant(ANSWER));
            }
        });
        main.run();
    }
}
