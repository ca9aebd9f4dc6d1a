package dev.keypool.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mvn test} runs without anything installed and in under 2 minutes because every test class that starts
 * something outside its JVM (redis-server, a Kafka broker, a browser, a database, another JVM) carries
 * {@code @Tag("slow")} and runs under Failsafe ({@code mvn verify}). A class that forgets the tag would fail
 * {@code mvn test} only on a machine without the package, so this reads the sources: a test class that starts a
 * process, or uses a fixture that does (found through the fixtures that use each other), must carry the tag.
 */
class SlowTestsTaggedTest {

    /** What starts a process or a broker; a fixture that does it another way adds its own marker here. */
    private static final List<String> STARTERS = List.of("ProcessBuilder", "Runtime.getRuntime().exec",
            "KafkaClusterTestKit", "ChromeDriver");
    private static final Pattern COMMENTS = Pattern.compile("(?s)/\\*.*?\\*/|//[^\\n]*");
    private static final Pattern STRINGS = Pattern.compile("(?s)\"\"\".*?\"\"\"|\"(\\\\.|[^\"\\\\\\n])*\"");
    private static final String TAG = "@Tag(\"slow\")";
    private static final Pattern NON_WORD = Pattern.compile("\\W+");

    @Test
    void should_tag_slow_every_test_class_that_starts_a_process_or_uses_a_fixture_that_does() throws IOException {
        Map<String, String> code = new HashMap<>();
        Map<String, String> withStrings = new HashMap<>();
        // the names each file's code uses, read once: a class is used where its name stands as a word
        Map<String, Set<String>> words = new HashMap<>();
        try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String name = file.getFileName().toString().replace(".java", "");
                String source = COMMENTS.matcher(Files.readString(file)).replaceAll("");
                withStrings.put(name, source);
                code.put(name, STRINGS.matcher(source).replaceAll("\"\""));
                words.put(name, new HashSet<>(Arrays.asList(NON_WORD.split(code.get(name)))));
            }
        }
        Set<String> starters = new HashSet<>();
        code.forEach((name, source) -> {
            if (STARTERS.stream().anyMatch(source::contains)) {
                starters.add(name);
            }
        });
        // a fixture that uses a fixture which starts a process starts one too (SharedGateways and RedisServer)
        boolean grew = true;
        while (grew) {
            grew = false;
            for (Map.Entry<String, String> file : code.entrySet()) {
                if (!starters.contains(file.getKey()) && !file.getKey().endsWith("Test")
                        && starters.stream().anyMatch(words.get(file.getKey())::contains)) {
                    grew = starters.add(file.getKey());
                }
            }
        }

        Set<String> untagged = new TreeSet<>();
        code.forEach((name, source) -> {
            boolean starts = starters.contains(name) || starters.stream().anyMatch(words.get(name)::contains);
            if (name.endsWith("Test") && starts && !withStrings.get(name).contains(TAG)) {
                untagged.add(name);
            }
        });

        assertThat(starters).as("the fixtures this check knows").contains("RedisServer", "GatewayProcess", "SharedGateways");
        assertThat(untagged).as("test classes that start a process without " + TAG + " (add it above the class)").isEmpty();
    }
}
