package dev.keypool.gateway;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The client's JSON body as it goes upstream: its own bytes, with a stream's usage asked for when the gateway asks. */
class UpstreamBodyTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void should_send_a_chat_stream_as_the_client_wrote_it_with_its_usage_asked_for_first() throws Exception {
        String client = " {\n  \"model\": \"gpt-4o\",\n  \"stream\": true,\n  \"temperature\": 1.0e0,\n"
                + "  \"messages\": [{\"role\": \"user\", \"content\": \"caf\\u00e9\"}]\n}\n";

        byte[] sent = body(client.getBytes(StandardCharsets.UTF_8), true).forModel("gpt-4o");

        assertThat(new String(sent, StandardCharsets.UTF_8))
                .isEqualTo(" {\"stream_options\":{\"include_usage\":true},\n  \"model\": \"gpt-4o\",\n  \"stream\": true,\n"
                        + "  \"temperature\": 1.0e0,\n  \"messages\": [{\"role\": \"user\", \"content\": \"caf\\u00e9\"}]\n}\n");
    }

    @Test
    void should_send_the_same_request_the_tree_holds() throws Exception {
        byte[] client = "{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
                .getBytes(StandardCharsets.UTF_8);
        UpstreamBody body = body(client, true);

        assertThat(JSON.readTree(body.forModel("gpt-4o"))).isEqualTo(body.json());
        assertThat(body.json().path("stream_options").path("include_usage").asBoolean()).isTrue();
        assertThat(body.usageAddedByGateway()).isTrue();
    }

    @Test
    void should_write_a_utf16_body_again_to_ask_for_a_streams_usage() throws Exception {
        byte[] client = "{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
                .getBytes(StandardCharsets.UTF_16);   // with its byte order mark
        UpstreamBody body = body(client, true);

        byte[] sent = body.forModel("gpt-4o");

        assertThat(JSON.readTree(sent)).isEqualTo(body.json());
        assertThat(new String(sent, StandardCharsets.UTF_8)).startsWith("{\"model\":\"gpt-4o\"");
    }

    @Test
    void should_send_the_clients_bytes_themselves_when_it_asked_for_the_usage_itself_or_the_api_reports_it() throws Exception {
        byte[] asked = "{\"model\":\"m\",\"stream\":true,\"stream_options\":{\"include_usage\":false},\"messages\":[]}"
                .getBytes(StandardCharsets.UTF_8);
        byte[] responses = "{\"model\":\"m\",\"stream\":true,\"input\":\"hi\"}".getBytes(StandardCharsets.UTF_8);

        assertThat(body(asked, true).forModel("m")).isSameAs(asked);
        assertThat(body(responses, false).forModel("m")).isSameAs(responses);
        assertThat(body(responses, false).usageAddedByGateway()).isFalse();
    }

    private static UpstreamBody body(byte[] client, boolean askStreamUsage) throws Exception {
        return new UpstreamBody(JSON, client, (ObjectNode) JSON.readTree(client), askStreamUsage);
    }
}
