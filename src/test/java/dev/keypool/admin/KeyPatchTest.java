package dev.keypool.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class KeyPatchTest {

    private final ObjectMapper mapper = new ObjectMapper();

    @Test
    void should_read_values_and_nulls() throws Exception {
        KeyPatch patch = KeyPatch.parse(mapper.readTree("{\"weight\":3,\"rpm\":100,\"tpd\":null,\"tpm\":0}"));

        assertThat(patch.values()).containsEntry("weight", 3L).containsEntry("rpm", 100L).containsEntry("tpd", null)
                .containsEntry("tpm", 0L).hasSize(4);
    }

    @Test
    void should_list_every_problem_at_once() throws Exception {
        InvalidChangeException invalid = catchThrowableOfType(InvalidChangeException.class,
                () -> KeyPatch.parse(mapper.readTree("{\"weight\":0,\"rpn\":1,\"rpd\":-1,\"tpm\":1.5,\"tpmMonth\":\"x\","
                        + "\"tpd\":123456789012345678}")));

        assertThat(invalid.problems()).containsExactly("weight: must be >= 1",
                "rpn: unknown field; fields: rpd, rpm, tpd, tpm, tpmMonth, weight",
                "rpd: must be >= 0 (0 lifts the limit)", "tpm: must be a whole number or null",
                "tpmMonth: must be a whole number or null", "tpd: must be <= 99999999999999");
    }

    @Test
    void should_refuse_an_empty_patch_or_no_object() throws Exception {
        assertThat(catchThrowableOfType(InvalidChangeException.class, () -> KeyPatch.parse(mapper.readTree("{}"))).problems())
                .singleElement().asString().startsWith("body: names nothing to change");
        assertThat(catchThrowableOfType(InvalidChangeException.class, () -> KeyPatch.parse(mapper.readTree("[1]"))).problems())
                .singleElement().asString().startsWith("body: must be a JSON object");
    }
}
