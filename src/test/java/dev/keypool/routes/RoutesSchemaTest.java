package dev.keypool.routes;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every file in routes/ is valid against the YAML DSL schema shipped in camel-yaml-dsl 4.18.0: YAML that runs is
 * not always schema-valid (e.g. {@code constant: true} unquoted, or {@code redeliveryDelay: 0} as a number), and
 * operators edit these files with schema-aware editors.
 */
class RoutesSchemaTest {

    private static final JsonSchema SCHEMA = load();

    static Stream<Path> routeFiles() throws Exception {
        return Files.list(Path.of("routes")).filter(p -> p.toString().endsWith(".camel.yaml")).sorted();
    }

    @ParameterizedTest
    @MethodSource("routeFiles")
    void should_be_valid_against_the_camel_yaml_dsl_schema(Path file) throws Exception {
        JsonNode routes = new YAMLMapper().readTree(file.toFile());

        Set<ValidationMessage> problems = SCHEMA.validate(routes);

        assertThat(problems).as(file + ": " + problems).isEmpty();
    }

    private static JsonSchema load() {
        try (InputStream schema = RoutesSchemaTest.class.getClassLoader().getResourceAsStream("schema/camelYamlDsl.json")) {
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(schema);
        } catch (Exception e) {
            throw new IllegalStateException("camel-yaml-dsl schema not found", e);
        }
    }

}
