package dev.keypool.config;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ConfiguredPathTest {

    private static final Map<String, String> NONE = Map.of();

    @Test
    void should_prefer_the_system_property() {
        assertThat(ConfigLoader.configuredPath(Map.of("keypool.config", "/etc/keypool/prop.yaml")::get,
                Map.of("KEYPOOL_CONFIG", "/etc/keypool/env.yaml")::get)).isEqualTo(Path.of("/etc/keypool/prop.yaml"));
    }

    @Test
    void should_use_the_environment_variable_without_the_property() {
        assertThat(ConfigLoader.configuredPath(NONE::get, Map.of("KEYPOOL_CONFIG", "/etc/keypool/env.yaml")::get))
                .isEqualTo(Path.of("/etc/keypool/env.yaml"));
    }

    @Test
    void should_ignore_a_blank_property() {
        assertThat(ConfigLoader.configuredPath(Map.of("keypool.config", " ")::get,
                Map.of("KEYPOOL_CONFIG", "env.yaml")::get)).isEqualTo(Path.of("env.yaml"));
    }

    @Test
    void should_fall_back_to_keypool_yaml_in_the_working_directory() {
        assertThat(ConfigLoader.configuredPath(NONE::get, NONE::get)).isEqualTo(Path.of("keypool.yaml"));
    }
}
