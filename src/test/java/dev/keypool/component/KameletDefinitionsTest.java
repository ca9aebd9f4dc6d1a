package dev.keypool.component;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged Kamelets are shaped as camel-kamelets ships its own: named as their file, an action, every parameter a
 * JSON schema property with title, description and type, the required ones among them, and every parameter used by
 * the template; the keypool component's tenant options are there.
 */
class KameletDefinitionsTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @ParameterizedTest
    @ValueSource(strings = {"keypool-chat-action", "keypool-embeddings-action"})
    void should_declare_its_parameters_as_json_schema_and_use_them(String name) throws Exception {
        JsonNode kamelet;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("kamelets/" + name + ".kamelet.yaml")) {
            assertThat(in).as("kamelets/%s.kamelet.yaml on the classpath", name).isNotNull();
            kamelet = YAML.readTree(in);
        }
        assertThat(kamelet.path("apiVersion").asText()).isEqualTo("camel.apache.org/v1");
        assertThat(kamelet.path("kind").asText()).isEqualTo("Kamelet");
        assertThat(kamelet.path("metadata").path("name").asText()).isEqualTo(name);
        assertThat(kamelet.path("metadata").path("labels").path("camel.apache.org/kamelet.type").asText()).isEqualTo("action");

        JsonNode definition = kamelet.path("spec").path("definition");
        assertThat(definition.path("type").asText()).isEqualTo("object");
        assertThat(definition.path("title").asText()).isNotBlank();
        assertThat(definition.path("description").asText()).isNotBlank();
        JsonNode properties = definition.path("properties");
        List<String> names = new ArrayList<>();
        properties.fieldNames().forEachRemaining(names::add);
        assertThat(names).contains("model", "tenant", "allowTenantHeader");
        for (String property : names) {
            assertThat(properties.path(property).path("title").asText()).as(property).isNotBlank();
            assertThat(properties.path(property).path("description").asText()).as(property).isNotBlank();
            assertThat(properties.path(property).path("type").asText()).as(property).isIn("string", "boolean");
        }
        definition.path("required").forEach(required -> assertThat(names).contains(required.asText()));

        String template = kamelet.path("spec").path("template").toString();
        assertThat(template).contains("kamelet:source");
        names.forEach(property -> assertThat(template).as("template uses %s", property).containsPattern("\\{\\{\\??" + property + "}}"));
    }
}
