package dev.keypool.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * The keypool.yaml files the benchmarks start their gateways with load as the service loads them: a file that only a
 * benchmark reads would otherwise break unseen, and a benchmark run by hand would find out after its build.
 */
class BenchConfigsLoadTest {

    @Test
    void should_load_every_keypool_yaml_under_bench() throws IOException {
        List<Path> files;
        try (Stream<Path> bench = Files.list(Path.of("bench"))) {
            files = bench.filter(f -> f.getFileName().toString().matches("keypool-.*\\.yaml")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        // ${NAME:-default} placeholders take their defaults, as on a machine that sets none of them
        ConfigLoader loader = new ConfigLoader(name -> null);
        for (Path file : files) {
            assertThatCode(() -> loader.load(file)).as(file.toString()).doesNotThrowAnyException();
        }
    }
}
