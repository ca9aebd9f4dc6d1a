package dev.keypool.testing;

import java.nio.file.Path;
import java.util.List;

/**
 * What the deployment files (deploy/) share with the setup the tests run: {@link ClusterFixture} runs it, and
 * DeployFilesTest checks the files against it.
 */
public final class DeploySettings {

    /** The deployment files: compose.yaml, keypool.yaml, nginx.conf, kubernetes/. */
    public static final Path DEPLOY = Path.of("deploy");
    /** The readiness path of the deployment files, which the fixture waits on. */
    public static final String READY_PATH = "/observe/health/ready";
    /** The liveness path of the deployment files. */
    public static final String LIVE_PATH = "/observe/health/live";
    /** The port every instance listens on in the deployment files (the gateway's default {@code camel.server.port}). */
    public static final int PORT = 8080;
    /** The JVM flags of the image (Dockerfile, deploy files) that every Java from 17 on knows; the fixture runs them. */
    public static final List<String> IMAGE_JVM_FLAGS = List.of("-Xmx320m", "-Xmn32m", "-XX:+UseParallelGC",
            "-XX:ParallelGCThreads=2", "-XX:TrimNativeHeapInterval=2000");

    private DeploySettings() {
    }
}
