package dev.keypool.gateway;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** RFC 2046 allows a multipart boundary of at most 70 characters; a longer one is refused (400) before any search. */
class MultipartBoundaryTest {

    @Test
    void should_refuse_a_boundary_over_70_characters() {
        String boundary = "b".repeat(71);

        GatewayError error = catchThrowableOfType(GatewayError.class,
                () -> MultipartForm.of(new byte[0], "multipart/form-data; boundary=" + boundary));

        assertThat(error.status()).isEqualTo(400);
        assertThat(error.getMessage()).contains("71").contains("70");
    }

    @Test
    void should_read_a_form_with_a_boundary_of_70_characters() {
        String b = "b".repeat(70);
        String body = "--" + b + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--" + b + "--\r\n";

        MultipartForm form = MultipartForm.of(body.getBytes(StandardCharsets.US_ASCII), "multipart/form-data; boundary=" + b)
                .orElseThrow();

        assertThat(form.field("model").orElseThrow().value()).isEqualTo("whisper-1");
    }
}
