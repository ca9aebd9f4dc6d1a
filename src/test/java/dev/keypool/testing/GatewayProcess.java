package dev.keypool.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.keypool.camel.KeyPoolApplication;

/**
 * The gateway as its own JVM (the main classes and dependencies of this build): for what a test cannot show inside its
 * own process, a kill -9 or a heap of a given size.
 */
public final class GatewayProcess {

    private GatewayProcess() {
    }

    /** Starts {@link KeyPoolApplication} serving on {@code port}, with these JVM options and system properties. */
    public static Process start(Path log, int port, List<String> jvmOptions, Map<String, String> properties) throws IOException {
        String classpath = Arrays.stream(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
                        .split(File.pathSeparator))
                .filter(entry -> !entry.endsWith("test-classes"))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmOptions);
        command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-cp", classpath,
                "-Dcamel.server.port=" + port, "-Dcamel.management.port=" + port));
        properties.forEach((name, value) -> command.add("-D" + name + "=" + value));
        command.add(KeyPoolApplication.class.getName());
        return new ProcessBuilder(command).directory(Path.of("").toAbsolutePath().toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }
}
