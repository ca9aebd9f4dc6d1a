package dev.keypool.gateway;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MultipartFormTest {

    private static final String TYPE = "multipart/form-data; boundary=\"b0undary\"";
    private static final String BODY = "--b0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"model.wav\"\r\n"
            + "Content-Type: audio/wav\r\n\r\nRIFF\r\n--b0undary-not-really\r\n"
            + "\r\n--b0undary\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n"
            + "--b0undary\r\nContent-Disposition: form-data; name=\"language\"\r\n\r\nen\r\n--b0undary--\r\n";

    @Test
    void should_find_the_model_field_and_not_a_file_part() {
        MultipartForm form = MultipartForm.of(bytes(BODY), TYPE).orElseThrow();

        MultipartForm.Field model = form.field("model").orElseThrow();

        assertThat(model.value()).isEqualTo("whisper-1");
        assertThat(form.field("language").orElseThrow().value()).isEqualTo("en");
        assertThat(form.field("prompt")).isEmpty();
    }

    @Test
    void should_read_a_file_part_with_its_name_and_bytes() {
        String upload = "--b0undary\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n"
                + "--b0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"in.jsonl\"\r\n"
                + "Content-Type: application/jsonl\r\n\r\n{\"a\":1}\n{\"b\":2}\n\r\n--b0undary--\r\n";
        MultipartForm form = MultipartForm.of(bytes(upload), TYPE).orElseThrow();

        MultipartForm.FilePart file = form.file("file").orElseThrow();

        assertThat(file.filename()).isEqualTo("in.jsonl");
        assertThat(new String(file.content(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}\n{\"b\":2}\n");
        assertThat(form.field("purpose").orElseThrow().value()).isEqualTo("batch");
        assertThat(form.field("file")).isEmpty();
        assertThat(form.file("upload")).isEmpty();
    }

    @Test
    void should_replace_only_the_value_of_the_field() {
        MultipartForm form = MultipartForm.of(bytes(BODY), TYPE).orElseThrow();

        byte[] renamed = form.replace(form.field("model").orElseThrow(), "whisper-large-v3");

        assertThat(new String(renamed, StandardCharsets.UTF_8)).isEqualTo(BODY.replace("\r\nwhisper-1\r\n", "\r\nwhisper-large-v3\r\n"));
    }

    @Test
    void should_refuse_what_is_not_multipart_form_data_with_a_boundary() {
        assertThat(MultipartForm.of(bytes(BODY), "application/json")).isEmpty();
        assertThat(MultipartForm.of(bytes(BODY), "multipart/form-data")).isEmpty();
        assertThat(MultipartForm.of(bytes(BODY), null)).isEmpty();
        assertThat(MultipartForm.of(bytes("garbage"), TYPE).orElseThrow().field("model")).isEmpty();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
