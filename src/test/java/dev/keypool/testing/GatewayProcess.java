package dev.keypool.testing;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.keypool.camel.KeyPoolApplication;
import org.awaitility.Awaitility;

/**
 * The gateway as its own JVM (the main classes and dependencies of this build): for what a test cannot show inside its
 * own process, a kill -9 or a heap of a given size.
 */
public final class GatewayProcess {

    private GatewayProcess() {
    }

    /**
     * Starts {@link KeyPoolApplication} serving on {@code port} with {@code yaml} as its keypool.yaml (written into
     * {@code root}), its state in {@code root/state} and its output in {@code root/<name>.log}, with these JVM options
     * and further system properties.
     */
    public static Process start(Path root, String name, String yaml, int port, List<String> jvmOptions,
                                Map<String, String> properties) throws IOException {
        return start(root, name, yaml, port, jvmOptions, properties, Map.of());
    }

    /** {@link #start(Path, String, String, int, List, Map)} with these variables added to its environment. */
    public static Process start(Path root, String name, String yaml, int port, List<String> jvmOptions,
                                Map<String, String> properties, Map<String, String> environment) throws IOException {
        Path config = Files.writeString(root.resolve("keypool.yaml"), yaml);
        String classpath = Arrays.stream(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
                        .split(File.pathSeparator))
                .filter(entry -> !entry.endsWith("test-classes"))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmOptions);
        command.addAll(runtimeOptions(Runtime.version().feature()));
        command.addAll(List.of("-cp", classpath,
                "-Dcamel.server.port=" + port, "-Dcamel.management.port=" + port,
                "-Dkeypool.config=" + config, "-Dstate.dir=" + root.resolve("state"),
                // not the repository's batch/ (the working directory), which every gateway a test starts would share
                "-Dbatch.inbox=" + root.resolve("inbox"), "-Dbatch.outbox=" + root.resolve("outbox")));
        // given after those, so that a test's own batch.inbox wins (the last -D of a name does)
        properties.forEach((property, value) -> command.add("-D" + property + "=" + value));
        command.add(KeyPoolApplication.class.getName());
        ProcessBuilder builder = new ProcessBuilder(command).directory(Path.of("").toAbsolutePath().toFile())
                .redirectErrorStream(true).redirectOutput(root.resolve(name + ".log").toFile());
        builder.environment().putAll(environment);
        return builder.start();
    }

    /**
     * Starts the packaged gateway as an operator does, {@code java [jvmOptions] -jar target/keypool.jar} from the
     * repository root (the build's jar and its lib/), on the JDK or JRE at {@code javaHome} with exactly these JVM
     * options, serving on {@code port} with {@code yaml} as its keypool.yaml, its state and output ({@code <name>.log}) in
     * {@code root}.
     */
    public static Process startJar(Path javaHome, Path root, String name, String yaml, int port, List<String> jvmOptions)
            throws IOException {
        Path config = Files.writeString(root.resolve("keypool.yaml"), yaml);
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin/java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-Dcamel.server.host=127.0.0.1", "-Dcamel.server.port=" + port,
                "-Dcamel.management.port=" + port, "-Dkeypool.config=" + config, "-Dstate.dir=" + root.resolve("state"),
                "-Dbatch.inbox=" + root.resolve("inbox"), "-Dbatch.outbox=" + root.resolve("outbox"),
                "-jar", "target/keypool.jar"));
        return new ProcessBuilder(command).directory(Path.of("").toAbsolutePath().toFile())
                .redirectErrorStream(true).redirectOutput(root.resolve(name + ".log").toFile()).start();
    }

    /** The feature release of the Java at {@code javaHome}, from its {@code release} file ({@code JAVA_VERSION="17.0.15"}). */
    public static int javaFeature(Path javaHome) throws IOException {
        for (String line : Files.readAllLines(javaHome.resolve("release"))) {
            if (line.startsWith("JAVA_VERSION=")) {
                String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                return Integer.parseInt(version.split("[.+-]")[0]);
            }
        }
        throw new IllegalStateException("no JAVA_VERSION in " + javaHome.resolve("release"));
    }

    /**
     * Stops a gateway started here as its operator would (SIGTERM: its routes drain, its state is written), and kills
     * it when it has not ended within 10 s; nothing when it was never started.
     */
    public static void stop(Process gateway) throws InterruptedException {
        if (gateway == null) {
            return;
        }
        gateway.destroy();
        if (!gateway.waitFor(10, TimeUnit.SECONDS)) {
            gateway.destroyForcibly();
        }
    }

    /**
     * Waits until the gateway on {@code port} has started every route ({@code /observe/health} answers 200): its edge is
     * in place before the first route takes a request, so from then on every request is bounded from its headers.
     */
    public static void awaitStarted(int port) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Awaitility.await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/observe/health"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    }

    /**
     * What the shipped start line gives Netty (JNI and sun.misc.Unsafe without a warning), as far as the child's Java
     * knows the flags: it is this JVM's own binary, and Java 17-22 refuse to start on --sun-misc-unsafe-memory-access.
     */
    static List<String> runtimeOptions(int javaFeature) {
        return javaFeature >= 23
                ? List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow")
                : List.of("--enable-native-access=ALL-UNNAMED");
    }
}
