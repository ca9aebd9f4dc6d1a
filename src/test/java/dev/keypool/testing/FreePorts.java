package dev.keypool.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for the servers a test starts (gateways, redis-server, PostgreSQL, nginx), one place for all of them.
 * <p>
 * A port the kernel picked for {@code new ServerSocket(0)} and that was closed again is free only until someone else
 * takes it: another test JVM of {@code mvn test} (Surefire runs several), or any outgoing connection, whose local
 * port comes from the same ephemeral range. So ports are handed out instead from a range below the kernel's ephemeral
 * one ({@code /proc/sys/net/ipv4/ip_local_port_range} starts at 32768), one range per test JVM (Surefire's fork
 * number, {@code keypool.test.fork}), in turn, each checked free before it is given.
 */
public final class FreePorts {

    private static final int FIRST = 20_000;
    private static final int PER_JVM = 1_500;
    private static final int JVMS = 8;

    private static final int BASE = FIRST + Math.floorMod(Integer.getInteger("keypool.test.fork", 1) - 1, JVMS) * PER_JVM;
    /**
     * From a random place in the range: test runs of other clones of the repository on the same machine use the same
     * range, and all starting at its first port they would take each other's ports between the check and the bind.
     */
    private static final AtomicInteger NEXT = new AtomicInteger(ThreadLocalRandom.current().nextInt(PER_JVM));

    private FreePorts() {
    }

    /** A port no other test JVM is given and nothing listens on now. */
    public static int next() {
        for (int i = 0; i < PER_JVM; i++) {
            int port = BASE + Math.floorMod(NEXT.getAndIncrement(), PER_JVM);
            if (free(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port in " + BASE + "-" + (BASE + PER_JVM - 1));
    }

    private static boolean free(int port) {
        try (ServerSocket probe = new ServerSocket(port)) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
