package dev.keypool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The TCP ports this JVM listens on (Linux: the sockets in /proc/self/fd matched with the LISTEN entries of
 * /proc/net/tcp and tcp6), to show that something opened no port at all, whatever port it would have chosen.
 */
public final class ListeningSockets {

    private static final String LISTEN = "0A";

    private ListeningSockets() {
    }

    public static Set<Integer> ofThisProcess() {
        try {
            Set<String> inodes = new TreeSet<>();
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                fds.forEach(fd -> {
                    try {
                        String target = Files.readSymbolicLink(fd).toString();
                        if (target.startsWith("socket:[")) {
                            inodes.add(target.substring(8, target.length() - 1));
                        }
                    } catch (IOException gone) {
                        // closed meanwhile
                    }
                });
            }
            Set<Integer> ports = new TreeSet<>();
            for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
                // read once: the table changes between two reads when other sockets open or close meanwhile
                List<String> lines = Files.readAllLines(Path.of(table));
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    if (f[3].equals(LISTEN) && inodes.contains(f[9])) {
                        ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
                    }
                }
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static int freePort() {
        return FreePorts.next();
    }
}
