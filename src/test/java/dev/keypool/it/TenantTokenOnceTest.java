package dev.keypool.it;

import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.pipeline.TenantGate;
import dev.keypool.tenant.Tenants;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A request's tenant token is hashed once, at the edge, and the route takes the tenant found there; a tenant that a
 * reload removed between the edge and the route is refused all the same.
 */
class TenantTokenOnceTest extends GatewayTestSupport {

    private static final String CONFIG = """
            channels:
              - name: alpha
                baseUrl: UPSTREAM
                models: ["*"]
                keys:
                  - key: sk-alpha-1
            tenants:
              - name: team-a
                token: token-a
              - name: team-b
                token: token-b
            admin:
              token: admin-secret-token
            """;

    @Override
    protected String keypoolYaml() {
        return CONFIG;
    }

    private Tenants tenants() {
        return context.getRegistry().lookupByNameAndType("tenantGate", TenantGate.class).tenants();
    }

    @Test
    void should_hash_the_token_of_a_request_once() throws Exception {
        assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);
        long before = tenants().tokensHashed();

        for (int i = 0; i < 3; i++) {
            assertThat(chatAs("token-a", "gpt-test").statusCode()).isEqualTo(200);
        }

        assertThat(tenants().tokensHashed() - before).isEqualTo(3);
    }

    @Test
    void should_refuse_a_tenant_removed_by_a_reload_while_its_body_arrives() throws Exception {
        byte[] body = chatBody("gpt-test").getBytes(StandardCharsets.UTF_8);
        long before = tenants().tokensHashed();
        try (Socket client = new Socket("127.0.0.1", port)) {
            OutputStream out = client.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Authorization: Bearer token-b\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body, 0, 10);
            out.flush();
            // the edge has taken the token
            await().atMost(Duration.ofSeconds(10)).until(() -> tenants().tokensHashed() > before);

            Path file = Path.of(context.resolvePropertyPlaceholders("{{keypool.config}}"));
            Files.writeString(file, CONFIG.replace("""
                      - name: team-b
                        token: token-b
                    """, "").replace("UPSTREAM", upstream.baseUrl()));
            HttpResponse<String> reloaded = new AdminCalls(http, url("")).post("/admin/reload");
            assertThat(new ObjectMapper().readTree(reloaded.body()).path("tenants").path("removed").toString())
                    .isEqualTo("[\"team-b\"]");

            out.write(body, 10, body.length - 10);
            out.flush();
            client.setSoTimeout(10_000);
            String answer = new String(client.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertThat(answer).isEqualTo("HTTP/1.1 401");
        }
        assertThat(upstream.received()).isEmpty();
    }
}
