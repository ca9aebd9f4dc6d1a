package dev.keypool.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service's routes come from the jar (classpath:keypool/routes/), and a route file of the same name on the file
 * system replaces the packaged one, file by file. Here the routes directory holds one file only, an edited
 * gateway.camel.yaml: the gateway runs it, and every other file (channel template, upstream call, errors) from the jar.
 */
class PackagedRoutesOverrideTest extends GatewayTestSupport {

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: main
                    baseUrl: UPSTREAM
                    models: [m]
                    keys:
                      - key: sk-main-429
                      - key: sk-main-ok
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        try {
            Path routes = Files.createTempDirectory("keypool-routes-");
            routes.toFile().deleteOnExit();
            // the operator's edit: every answer of the entry route carries one more header
            String finish = "                - bean:\n                    ref: gatewayResponses\n"
                    + "                    method: finish\n";
            String gateway = Files.readString(Path.of("routes/gateway.camel.yaml")).replace(finish, finish
                    + "                - setHeader:\n                    name: X-Edited-Route\n"
                    + "                    constant: \"from-file\"\n");
            assertThat(gateway).contains("X-Edited-Route");
            Files.writeString(routes.resolve("gateway.camel.yaml"), gateway).toFile().deleteOnExit();
            p.put("camel.main.routes-include-pattern", "file:" + routes + "/*.camel.yaml");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    @Test
    void should_run_a_route_file_from_the_file_system_in_place_of_the_packaged_one_and_the_rest_from_the_jar() throws Exception {
        upstream.answer("sk-main-429", 429);

        HttpResponse<String> r = chat("m");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-Edited-Route")).as("gateway.camel.yaml from the file system").contains("from-file");
        // the packaged channel template and upstream-errors did their part: the 429 key cooled, the next one served
        assertThat(r.headers().firstValue("X-KeyPool-Attempts")).contains("2");
        assertThat(context.getRoute("channel-main")).isNotNull();
        assertThat(context.getRoute("upstream-attempt").getSourceLocation()).contains("/keypool/routes/upstream.camel.yaml");
        assertThat(context.getRoute("chat-completions").getSourceLocation()).doesNotContain("/keypool/routes/");
        // the simulator is not packaged: a gateway without its file has no /demo routes
        assertThat(context.getRoute("demo-upstream-chat")).isNull();
    }
}
