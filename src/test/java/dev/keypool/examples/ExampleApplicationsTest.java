package dev.keypool.examples;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.FakeUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs the host applications of examples/ as they are, each in a JVM of its own started from its own directory
 * (its keypool.yaml, application.properties and routes), against a fake provider whose key demo-key-rate-limited
 * always answers 429. Their Java sources are compiled here and run on this build's classes and dependencies, which is
 * what their Maven modules get from the installed dev.keypool:keypool jar (examples/README.md builds them that way):
 * the suite stays one Maven run and tests the KeyPool it just compiled.
 */
@Tag("slow")
class ExampleApplicationsTest {

    private static final Pattern ANSWER = Pattern.compile(
            "Answer from channel (\\S+), key (\\S+), after (\\d+) call\\(s\\): fake answer \\d+");

    private final FakeUpstream upstream = new FakeUpstream().answer("demo-key-rate-limited", 429);
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stop() {
        processes.forEach(Process::destroyForcibly);
        upstream.close();
    }

    @Test
    void should_run_the_camel_main_yaml_example_timer_to_keypool_chat_rotating_past_the_429_key() throws Exception {
        Path output = run("camel-main-yaml", "dev.keypool.examples.mainyaml.AskApplication", "-Dask.period=200");

        await().atMost(Duration.ofSeconds(40)).until(() -> answers(output).size() >= 3);

        List<Matcher> answers = answers(output);
        assertThat(answers.get(0).group(1)).isEqualTo("example");
        assertThat(answers.get(0).group(2)).isEqualTo(Fingerprint.of("demo-key-1"));
        assertThat(answers.get(0).group(3)).as("the 429 key, then the good one").isEqualTo("2");
        // the rate-limited key is cooling: the next questions go straight to the good key
        assertThat(answers.get(1).group(3)).isEqualTo("1");
        assertThat(answers.get(2).group(3)).isEqualTo("1");
        assertThat(upstream.hits("demo-key-rate-limited")).isEqualTo(1);
        assertThat(Files.readString(output)).contains("Key " + Fingerprint.of("demo-key-rate-limited") + "(example) cooling 60s after 429")
                .doesNotContain("demo-key-1");
    }

    @Test
    void should_run_the_plain_camel_context_example_through_the_kamelet_rotating_past_the_429_key() throws Exception {
        Path output = run("plain-camel-context", "dev.keypool.examples.plain.AskWithKamelet");

        Process process = processes.get(0);
        assertThat(process.waitFor(40, TimeUnit.SECONDS)).as("the example ends by itself").isTrue();
        assertThat(process.exitValue()).as(Files.readString(output)).isZero();

        List<Matcher> answers = answers(output);
        assertThat(answers).hasSize(2);
        assertThat(answers.get(0).group(2)).isEqualTo(Fingerprint.of("demo-key-1"));
        assertThat(answers.get(0).group(3)).isEqualTo("2");
        assertThat(answers.get(1).group(3)).isEqualTo("1");
        assertThat(upstream.received().get(1).body()).contains("\"model\":\"gpt-4o-mini\"").contains("What is a circuit breaker?");
    }

    @Test
    void should_run_the_langchain4j_example_ai_services_on_keypool_models_plain_and_streamed() throws Exception {
        Path output = run("langchain4j", "dev.keypool.examples.langchain4j.AskWithLangChain4j");

        Process process = processes.get(0);
        assertThat(process.waitFor(40, TimeUnit.SECONDS)).as("the example ends by itself").isTrue();
        String printed = Files.readString(output);
        assertThat(process.exitValue()).as(printed).isZero();

        assertThat(printed.lines().filter(line -> line.matches("Plain answer: fake answer \\d+"))).hasSize(2);
        assertThat(printed).contains("Streamed answer in 5 parts: tok0 tok1 tok2 tok3 tok4 ")
                .contains("Key " + Fingerprint.of("demo-key-rate-limited") + "(demo) cooling 60s after 429")
                .doesNotContain("demo-key-1");
        // the 429 key was asked once, then cooled: the second question and the stream went to the good key
        assertThat(upstream.hits("demo-key-rate-limited")).isEqualTo(1);
        assertThat(upstream.hits("demo-key-1")).isEqualTo(3);
        assertThat(upstream.received().get(3).body()).contains("\"stream\":true").contains("Tell me about key rotation.");
    }

    /** Compiles the example's Java sources and starts its main class in its directory; returns the file of its output. */
    private Path run(String example, String mainClass, String... jvmOptions) throws IOException {
        Path dir = Path.of("examples", example).toAbsolutePath();
        Path classes = Files.createTempDirectory("keypool-example-");
        List<String> sources;
        try (Stream<Path> files = Files.walk(dir.resolve("src/main/java"))) {
            sources = files.filter(f -> f.toString().endsWith(".java")).map(Path::toString).toList();
        }
        String classpath = System.getProperty("java.class.path");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-cp", classpath, "--release", "17"));
        args.addAll(sources);
        assertThat(javac.run(null, null, null, args.toArray(String[]::new))).as("javac of %s", example).isZero();

        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-XX:TieredStopAtLevel=1", "-Xmx256m"));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", String.join(File.pathSeparator, classes.toString(),
                dir.resolve("src/main/resources").toString(), classpath), mainClass));
        Path output = Files.createTempFile("keypool-example-", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().put("UPSTREAM_BASE_URL", upstream.baseUrl());
        Path state = dir.resolve("target/keypool-state");
        deleteQuotaState(state);
        processes.add(builder.start());
        return output;
    }

    private static List<Matcher> answers(Path output) throws IOException {
        List<Matcher> answers = new ArrayList<>();
        for (String line : Files.readAllLines(output)) {
            Matcher m = ANSWER.matcher(line);
            if (m.find()) {
                answers.add(m);
            }
        }
        return answers;
    }

    /** No day or month counts left from an earlier run of the example. */
    private static void deleteQuotaState(Path state) throws IOException {
        if (Files.isDirectory(state)) {
            try (Stream<Path> files = Files.list(state)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
        }
    }
}
