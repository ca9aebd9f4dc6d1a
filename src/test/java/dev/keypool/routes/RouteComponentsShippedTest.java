package dev.keypool.routes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Camel component a route of routes/ uses is a runtime dependency of the jar, not only on the test classpath
 * (where the test kit brings several): the shipped gateway would fail at startup with "No endpoint could be found".
 */
class RouteComponentsShippedTest {

    private static final Pattern URI = Pattern.compile("uri: \"?([a-z][a-z0-9-]*):");
    private static final Pattern DEPENDENCY = Pattern.compile(
            "<dependency>\\s*<groupId>org\\.apache\\.camel</groupId>\\s*<artifactId>([a-z0-9-]+)</artifactId>\\s*(<scope>(\\w+)</scope>)?");

    @Test
    void should_ship_the_component_of_every_endpoint_the_routes_use() throws Exception {
        Set<String> schemes = new TreeSet<>();
        try (Stream<Path> files = Files.list(Path.of("routes"))) {
            for (Path file : files.filter(p -> p.toString().endsWith(".camel.yaml")).toList()) {
                Matcher m = URI.matcher(Files.readString(file));
                while (m.find()) {
                    schemes.add(m.group(1));
                }
            }
        }
        Set<String> shipped = new TreeSet<>();
        Matcher d = DEPENDENCY.matcher(Files.readString(Path.of("pom.xml")));
        while (d.find()) {
            if (d.group(3) == null || d.group(3).equals("compile") || d.group(3).equals("runtime")) {
                shipped.add(d.group(1));
            }
        }

        assertThat(schemes).contains("platform-http", "direct", "timer");
        assertThat(schemes).allSatisfy(scheme -> assertThat(shipped)
                .as("component of %s: endpoints in the shipped jar's dependencies", scheme)
                .anyMatch(artifact -> artifact.equals("camel-" + scheme) || artifact.startsWith("camel-" + scheme + "-")));
    }
}
