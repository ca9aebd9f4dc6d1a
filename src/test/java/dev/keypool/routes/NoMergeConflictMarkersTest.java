package dev.keypool.routes;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No file of the repository keeps a merge conflict's markers: one landed in the README once and nothing else would
 * have noticed.
 */
class NoMergeConflictMarkersTest {

    @Test
    void should_find_no_conflict_marker_in_the_repository() throws IOException {
        List<String> found = new ArrayList<>();
        for (String root : List.of("README.md", "src", "routes", "bench", "examples", "docs", "keypool.yaml",
                "application.properties", "Dockerfile", "pom.xml", ".ci")) {
            Path start = Path.of(root);
            if (!Files.exists(start)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(start)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    List<String> lines;
                    try {
                        lines = Files.readAllLines(file);
                    } catch (MalformedInputException binary) {
                        continue;
                    }
                    for (int i = 0; i < lines.size(); i++) {
                        String line = lines.get(i);
                        if (line.startsWith("<<<<<<< ") || line.startsWith(">>>>>>> ") || line.equals("<<<<<<<")) {
                            found.add(file + ":" + (i + 1));
                        }
                    }
                }
            }
        }
        assertThat(found).isEmpty();
    }
}
