package dev.keypool.config;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Shared inputs for the config tests: a fixed environment, fixture files, and a valid channel to break one field of. */
final class ConfigFixtures {

    static final Map<String, String> ENV = Map.of(
            "ZHIPU_KEY_1", "sk-zhipu-1",
            "ZHIPU_KEY_2", "sk-zhipu-2",
            "DASHSCOPE_KEY", "sk-dashscope",
            "DEEPSEEK_KEY", "sk-deepseek",
            "TEAM_A_TOKEN", "tenant-a-token",
            "TEAM_B_TOKEN", "tenant-b-token",
            "KEYPOOL_ADMIN_TOKEN", "admin-token");

    private ConfigFixtures() {
    }

    static Path resource(String name) {
        try {
            return Path.of(ConfigFixtures.class.getResource("/config/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static GatewayConfig parse(String yaml) {
        return parse(ENV, yaml);
    }

    static GatewayConfig parse(Map<String, String> env, String yaml) {
        return new ConfigLoader(env::get).parse(yaml, "test.yaml");
    }

    static List<String> problemsOf(String yaml) {
        return problemsOf(ENV, yaml);
    }

    static List<String> problemsOf(Map<String, String> env, String yaml) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(env, yaml));
        assertThat(e).as("a ConfigException for%n%s", yaml).isNotNull();
        return e.problems();
    }

    /** A valid file with one channel {@code zhipu}, plus {@code fields} (one per line) added to that channel. */
    static String channelWith(String fields) {
        return """
                channels:
                  - name: zhipu
                    baseUrl: https://example.com/v1
                    models: [glm-4]
                    keys:
                      - key: sk-one
                """ + indent(fields, 4);
    }

    /** A valid file whose only channel has this {@code breaker} block. */
    static String breakerWith(String fields) {
        return channelWith("breaker:\n" + indent(fields, 2));
    }

    /** A valid file whose only channel has one key entry made of {@code fields}. */
    static String keyWith(String fields) {
        return """
                channels:
                  - name: zhipu
                    baseUrl: https://example.com/v1
                    models: [glm-4]
                    keys:
                """ + indent("- " + indent(fields, 2).stripLeading(), 6);
    }

    private static String indent(String lines, int spaces) {
        return lines.stripTrailing().indent(spaces);
    }
}
