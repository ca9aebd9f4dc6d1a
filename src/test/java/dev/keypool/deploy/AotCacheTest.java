package dev.keypool.deploy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.keypool.testing.DeploySettings;
import dev.keypool.testing.FreePorts;
import dev.keypool.testing.GatewayProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The AOT cache as the image and bench/ use it (docs/decisions.md, "The AOT cache"): deploy/aot-cache.sh makes it by a
 * training run of the packaged jar on Java 25, and the jar started on it takes KeyPool's classes from the cache and
 * serves; started with flags the cache was not made for, the JVM refuses it and still serves; the plain {@code java -jar}
 * on Java 17 starts and serves without one; bench/lib.sh asks for the cache only on a JVM that has it. Runs the build's
 * {@code target/keypool.jar} (mvn verify packages it before the slow tests).
 */
@Tag("slow")
class AotCacheTest {

    private static final Path JAVA_17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
    private static final Path THIS_JAVA = Path.of(System.getProperty("java.home"));
    /** The first request walks: walk's one key is refused (401), its fallback demo answers. */
    private static final String DEMO = """
            channels:
              - name: walk
                baseUrl: http://127.0.0.1:PORT/demo/v1
                models: [gpt-4o-mini]
                keys:
                  - key: demo-key-revoked
                fallback: [demo]
              - name: demo
                baseUrl: http://127.0.0.1:PORT/demo/v1
                models: ["*"]
                keys:
                  - key: demo-key-1
            """;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stop() {
        // the training script's gateway too, should the script be stopped before it stops its gateway
        processes.forEach(process -> {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        });
    }

    @Test
    void should_make_the_cache_by_a_training_run_and_start_the_jar_with_keypool_taken_from_it(@TempDir Path dir)
            throws Exception {
        assumeThat(Runtime.version().feature()).as("the AOT cache needs Java 25").isGreaterThanOrEqualTo(25);
        assumeThat(Path.of("target/keypool.jar")).as("the packaged jar").exists();
        Path cache = dir.resolve("keypool.aot");

        ProcessBuilder training = new ProcessBuilder("bash", "deploy/aot-cache.sh", cache.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("training.log").toFile());
        training.environment().put("JAVA_HOME", THIS_JAVA.toString());
        training.environment().remove("JAVA_OPTS");
        training.environment().put("AOT_TRAINING_ROUNDS", "1");
        Process trainer = training.start();
        processes.add(trainer);
        assertThat(trainer.waitFor(20, TimeUnit.MINUTES)).as("the training run ends").isTrue();
        assertThat(trainer.exitValue()).as(Files.readString(dir.resolve("training.log"))).isZero();
        assertThat(cache).isNotEmptyFile();

        List<String> flags = new ArrayList<>(List.of("-XX:AOTCache=" + cache, "-Xlog:class+load=info"));
        flags.addAll(dockerfileJavaOptions());
        String log = serve(THIS_JAVA, dir, "cached", flags);

        assertThat(log).containsPattern("dev\\.keypool\\.camel\\.GatewayConfiguration source: shared objects file")
                .doesNotContain("dev.keypool.camel.GatewayConfiguration source: file:");
        // none of KeyPool's classes loaded by the first request (a fallback walk) came from the jar: the training run
        // walked the request path
        assertThat(log.substring(log.indexOf(" started in "))).doesNotContainPattern("dev\\.keypool\\.\\S+ source: (file|jar):");
    }

    @Test
    void should_start_without_the_cache_when_the_flags_are_not_those_it_was_made_with(@TempDir Path dir) throws Exception {
        assumeThat(Runtime.version().feature()).as("the AOT cache needs Java 25").isGreaterThanOrEqualTo(25);
        Path cache = Path.of("target/keypool.aot");
        assumeThat(cache).as("the build's cache (mvn package on Java 25)").exists();

        List<String> flags = new ArrayList<>(List.of("-XX:AOTCache=" + cache.toAbsolutePath(), "-Xlog:class+load=info"));
        flags.addAll(dockerfileJavaOptions());
        flags.remove("-XX:+UseCompactObjectHeaders");
        String log = serve(THIS_JAVA, dir, "refused", flags);

        assertThat(log).contains("dev.keypool.camel.GatewayConfiguration source: file:")
                .doesNotContain("dev.keypool.camel.GatewayConfiguration source: shared objects file");
    }

    @Test
    void should_start_the_plain_jar_on_java_17(@TempDir Path dir) throws Exception {
        assumeThat(JAVA_17.resolve("bin/java")).as("a Java 17 at " + JAVA_17).exists();
        assumeThat(GatewayProcess.javaFeature(JAVA_17)).isEqualTo(17);
        assumeThat(Path.of("target/keypool.jar")).as("the packaged jar").exists();

        serve(JAVA_17, dir, "java17", DeploySettings.IMAGE_JVM_FLAGS);
    }

    @Test
    void should_ask_for_the_cache_in_bench_only_on_java_25_and_when_it_is_there(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("target"));
        Files.writeString(dir.resolve("target/keypool.aot"), "");
        Path none = Files.createDirectories(dir.resolve("none"));

        assertThat(aotFlags(dir, "25", "")).isEqualTo("-XX:AOTCache=target/keypool.aot");
        assertThat(aotFlags(dir, "26", "")).isEqualTo("-XX:AOTCache=target/keypool.aot");
        assertThat(aotFlags(dir, "17", "")).isEmpty();
        assertThat(aotFlags(dir, "21", "")).isEmpty();
        assertThat(aotFlags(dir, "25", "off")).isEmpty();
        assertThat(aotFlags(none, "25", "")).isEmpty();
    }

    /** Starts the jar on {@code javaHome} with these flags, waits for a chat completion answered 200; its log. */
    private String serve(Path javaHome, Path dir, String name, List<String> flags) throws IOException {
        int port = FreePorts.next();
        Process gateway = GatewayProcess.startJar(javaHome, dir, name, DEMO.replace("PORT", String.valueOf(port)), port,
                flags);
        processes.add(gateway);
        HttpRequest chat = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .build();
        Path log = dir.resolve(name + ".log");
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() -> {
            assertThat(gateway.isAlive()).as("the gateway runs: %s", Files.readString(log)).isTrue();
            return http.send(chat, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        });
        return Files.readString(log);
    }

    /** What bench/lib.sh's aot_flags says for a gateway in {@code dir} on a JVM of this feature release. */
    private static String aotFlags(Path dir, String javaFeature, String aotCache) throws Exception {
        Process bash = new ProcessBuilder("bash", "-c",
                "BENCH_DIR=bench; . bench/lib.sh; JAVA_FEATURE=" + javaFeature + "; AOT_CACHE=" + aotCache
                        + "; aot_flags \"$0\"", dir.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(bash.getInputStream().readAllBytes()).strip();
        assertThat(bash.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(bash.exitValue()).isZero();
        return out;
    }

    /** The Dockerfile's {@code ENV JAVA_OPTS="…"}: the flags the image runs, and trains its cache, with. */
    private static List<String> dockerfileJavaOptions() throws IOException {
        Matcher options = Pattern.compile("(?m)^ENV JAVA_OPTS=\"([^\"]+)\"").matcher(Files.readString(Path.of("Dockerfile")));
        assertThat(options.find()).as("ENV JAVA_OPTS in the Dockerfile").isTrue();
        return List.of(options.group(1).split(" "));
    }
}
