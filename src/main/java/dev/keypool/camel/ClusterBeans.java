package dev.keypool.camel;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import dev.keypool.admin.Cluster;
import dev.keypool.admin.Member;
import dev.keypool.redis.RedisCluster;
import dev.keypool.redis.RedisLink;
import org.apache.camel.CamelContext;

/**
 * This instance among those sharing a Redis (design §11): its id, version and start, and the {@code cluster} bean the
 * cluster-heartbeat route beats with, {@code GET /admin/status} lists and {@code POST /admin/reload} asks. Without
 * Redis the cluster is this instance alone.
 */
final class ClusterBeans {

    /** This instance: what its heartbeat says besides the figures that change. */
    record Identity(String id, String version, Instant startedAt) {
    }

    private ClusterBeans() {
    }

    /**
     * {@code keypool.instance-id}, else the host's name and the API's port ({@code keypool-7f9c:8080}; a pod's name in
     * Kubernetes, a container's id in Compose): unique among the instances that run, and the same after a restart.
     * Embedded without HTTP, or in a host that leaves its server's port to Camel's default, the process id stands for
     * the port.
     */
    static Identity identify(CamelContext context, boolean http, Clock clock) {
        String pid = "pid" + ProcessHandle.current().pid();
        String id = Wiring.optionalSetting(context, "keypool.instance-id").map(String::trim).orElseGet(() ->
                host() + ":" + (http ? Wiring.optionalSetting(context, "camel.server.port").orElse(pid) : pid));
        return new Identity(id, version(), clock.instant());
    }

    /** Binds {@code cluster}; {@code inFlight} and {@code configDigest} are read at each heartbeat. */
    static Cluster bind(CamelContext context, Identity identity, RedisLink redis, IntSupplier inFlight,
                        Supplier<String> configDigest, Clock clock) {
        Duration heartbeat = Duration.ofMillis(Wiring.longSetting(context, "keypool.cluster.heartbeat-ms"));
        Supplier<Member> self = () -> new Member(identity.id(), identity.version(), identity.startedAt(), clock.instant(),
                inFlight.getAsInt(), configDigest.get(), heartbeat);
        Cluster cluster = redis == null ? Cluster.alone(self) : new RedisCluster(redis, self, clock);
        context.getRegistry().bind("cluster", cluster);
        return cluster;
    }

    private static String host() {
        String fromEnvironment = System.getenv("HOSTNAME");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return fromEnvironment.trim();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException unnamed) {
            return "keypool";
        }
    }

    /** The build's version (written into the jar and the classes by Maven), or {@code unknown}. */
    private static String version() {
        try (InputStream in = ClusterBeans.class.getResourceAsStream("/dev/keypool/version.properties")) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                String version = properties.getProperty("version");
                if (version != null && !version.startsWith("${")) {
                    return version;
                }
            }
        } catch (IOException unreadable) {
            // below
        }
        return "unknown";
    }
}
