package dev.keypool.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.GatewayInstance;
import org.junit.jupiter.api.Test;

/**
 * Not part of the suite (its name matches none of Surefire's test patterns): boots and stops whole gateways one after
 * another in one warm JVM, as the test suite does some 300 times, and prints the CPU each boot and each stop take
 * (the process's, all threads: Camel's, Vert.x's, the JIT's and the collector's), and the wall time of each stop (what
 * a test waits for it). Each boot answers one chat request
 * before it stops, so that what a boot leaves lazy is paid inside the figure.
 * <p>
 * The gateways are booted in variants taken in turn, so that the load of a shared machine falls on all of them alike:
 * by default JMX on (as shipped) and off (as {@code GatewayTestSupport} boots it); {@code -Dboot.variants} names others,
 * {@code ;} between variants, {@code ,} between the settings of one (an empty variant: application.properties as it is).
 * <p>
 * {@code mvn -o test -Dtest=GatewayBootBench -Dsurefire.failIfNoSpecifiedTests=false [-Dboot.rounds=20]
 * [-Dboot.variants="camel.main.jmx-enabled=true;camel.main.jmx-enabled=false"]}; with
 * {@code -Dsurefire.jvm.flags="-XX:TieredStopAtLevel=1 -XX:StartFlightRecording=filename=/tmp/boot.jfr"} a profile of
 * it for {@code jfr print --events jdk.ExecutionSample}.
 */
class GatewayBootBench {

    private static final int WARM_UP = 5;
    private static final int ROUNDS = Integer.getInteger("boot.rounds", 20);
    private static final List<String> VARIANTS = List.of(
            System.getProperty("boot.variants", "camel.main.jmx-enabled=true;camel.main.jmx-enabled=false").split(";", -1));
    private static final String CONFIG = """
            channels:
              - name: main
                baseUrl: UPSTREAM
                models: [m]
                keys:
                  - key: sk-boot-1
                  - key: sk-boot-2
            """;

    @Test
    void cpu_per_boot() throws Exception {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Path dir = Files.createTempDirectory("keypool-boot-");
        try (FakeUpstream upstream = new FakeUpstream().keepRequests(false)) {
            String yaml = CONFIG.replace("UPSTREAM", upstream.baseUrl());
            long[][] boot = new long[VARIANTS.size()][ROUNDS];
            long[][] stop = new long[VARIANTS.size()][ROUNDS];
            long[][] stopWall = new long[VARIANTS.size()][ROUNDS];
            for (int i = -WARM_UP; i < ROUNDS; i++) {
                for (int v = 0; v < VARIANTS.size(); v++) {
                    String name = "g" + (i + WARM_UP) + "-" + v;
                    Map<String, String> settings = settings(VARIANTS.get(v));
                    settings.put("batch.inbox", dir.resolve(name).resolve("inbox").toString());
                    settings.put("batch.outbox", dir.resolve(name).resolve("outbox").toString());
                    long t0 = os.getProcessCpuTime();
                    GatewayInstance gateway = GatewayInstance.start(dir, name, yaml, Clock.systemUTC(), settings);
                    if (gateway.chat("m", null).statusCode() != 200) {
                        throw new AssertionError("the booted gateway did not answer");
                    }
                    long t1 = os.getProcessCpuTime();
                    long w1 = System.nanoTime();
                    gateway.close();
                    long t2 = os.getProcessCpuTime();
                    if (i >= 0) {
                        boot[v][i] = t1 - t0;
                        stop[v][i] = t2 - t1;
                        stopWall[v][i] = System.nanoTime() - w1;
                    }
                }
            }
            System.out.printf("%d rounds after %d to warm up, %d cores, load average %.1f%n", ROUNDS, WARM_UP,
                    os.getAvailableProcessors(), os.getSystemLoadAverage());
            for (int v = 0; v < VARIANTS.size(); v++) {
                System.out.printf("boot + first request: median %6.1f ms CPU (quartiles %6.1f-%6.1f); stop: median %5.1f ms CPU, "
                        + "%6.1f ms wall   [%s]%n",
                        quantile(boot[v], 0.5), quantile(boot[v], 0.25), quantile(boot[v], 0.75), quantile(stop[v], 0.5),
                        quantile(stopWall[v], 0.5),
                        VARIANTS.get(v).isEmpty() ? "as application.properties" : VARIANTS.get(v));
            }
        }
    }

    private static Map<String, String> settings(String variant) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String setting : variant.split(",")) {
            if (setting.contains("=")) {
                settings.put(setting.substring(0, setting.indexOf('=')).trim(), setting.substring(setting.indexOf('=') + 1).trim());
            }
        }
        return settings;
    }

    private static double quantile(long[] nanos, double q) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))] / 1e6;
    }
}
