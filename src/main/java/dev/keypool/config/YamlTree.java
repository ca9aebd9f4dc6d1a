package dev.keypool.config;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * YAML text to a tree, or one problem with line and column. Only the parser's short description is kept:
 * its full message quotes the offending source line, which may hold a key.
 */
final class YamlTree {

    // a field written twice would silently keep its last value, e.g. the second "key:" of a key entry
    private static final YAMLMapper MAPPER = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .build();

    private static final Pattern DUPLICATE_FIELD = Pattern.compile("^Duplicate field '([^']*)'");

    private YamlTree() {
    }

    static JsonNode read(String yaml, String sourceName) {
        try {
            return MAPPER.readTree(yaml);
        } catch (JsonProcessingException e) {
            throw new ConfigException(sourceName, List.of(describe(e)));
        }
    }

    private static String describe(JsonProcessingException e) {
        if (e.getCause() instanceof MarkedYAMLException yaml && yaml.getProblemMark() != null) {
            Mark at = yaml.getProblemMark();   // 0-based
            String context = yaml.getContext() == null ? "" : " (" + yaml.getContext() + ")";
            return at(at.getLine() + 1, at.getColumn() + 1) + "YAML syntax error: " + yaml.getProblem() + context;
        }
        String message = String.valueOf(e.getOriginalMessage()).lines().findFirst().orElse("");
        Matcher duplicate = DUPLICATE_FIELD.matcher(message);
        String what = duplicate.find() ? "duplicate field " + Problems.quote(duplicate.group(1))
                : "YAML syntax error: " + message;
        JsonLocation location = e.getLocation();
        return location == null ? what : at(location.getLineNr(), location.getColumnNr()) + what;
    }

    private static String at(int line, int column) {
        return "line " + line + ", column " + column + ": ";
    }
}
