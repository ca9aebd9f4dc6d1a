package dev.keypool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * A real PostgreSQL (Debian's {@code postgresql} package, installed by {@code ./test.sh}) in a temporary data directory,
 * on a free loopback port: {@code initdb} with trust authentication, then {@code postgres} in the foreground, stopped
 * by {@code pg_ctl stop} (the pid in its own postmaster.pid) and its directory removed. As root, both run as the
 * {@code postgres} user, since PostgreSQL refuses to run as root.
 */
public final class PostgresServer implements AutoCloseable {

    private static final String USER = "keypool";

    private final Path dataDir;
    private final int port;
    private final Path bin;
    private Process process;

    private PostgresServer(Path dataDir, int port, Path bin) {
        this.dataDir = dataDir;
        this.port = port;
        this.bin = bin;
    }

    public static PostgresServer start() {
        Path bin = binDirectory();
        try {
            Path dir = Files.createTempDirectory("keypool-pg-");
            PostgresServer server = new PostgresServer(dir.resolve("data"), freePort(), bin);
            if (asRoot()) {
                dir.toFile().setWritable(true, false);
                dir.toFile().setExecutable(true, false);
                run(List.of("chown", "postgres:postgres", dir.toString()));
            }
            run(server.asPostgres(bin.resolve("initdb").toString(), "-D", server.dataDir.toString(), "-U", USER,
                    "--auth=trust", "-E", "UTF8", "--no-sync"));
            server.startServer();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void startServer() throws IOException {
        process = new ProcessBuilder(asPostgres(bin.resolve("postgres").toString(), "-D", dataDir.toString(),
                "-p", String.valueOf(port), "-h", "127.0.0.1", "-k", dataDir.toString(), "-c", "fsync=off"))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("postgres exited with " + process.exitValue());
            }
            return acceptsQueries();
        });
    }

    /** The database.url of keypool.yaml, in the form LiteLLM and hosting panels print. */
    public String url() {
        return "postgresql://" + USER + ":unused@127.0.0.1:" + port + "/postgres";
    }

    public int port() {
        return port;
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    public Properties credentials() {
        Properties p = new Properties();
        p.setProperty("user", USER);
        return p;
    }

    /** The server's process; its backends are among its descendants (benchmarks count their CPU). */
    public ProcessHandle handle() {
        return process.toHandle();
    }

    public RequestLogRows rows() {
        return new RequestLogRows(jdbcUrl(), credentials());
    }

    /** The first column of every row {@code sql} selects, as text, with {@code parameters} bound in order. */
    public List<String> column(String sql, Object... parameters) {
        try (Connection c = DriverManager.getConnection(jdbcUrl(), credentials());
             PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            List<String> values = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    values.add(r.getString(1));
                }
            }
            return values;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot run " + sql, e);
        }
    }

    /** Stops the server at once (the database is down), leaving its data for {@link #restart()}. */
    public void stop() {
        try {
            run(asPostgres(bin.resolve("pg_ctl").toString(), "stop", "-D", dataDir.toString(), "-m", "immediate"));
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public void restart() {
        try {
            startServer();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            stop();
        }
        try (Stream<Path> files = Files.walk(dataDir.getParent())) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }

    private List<String> asPostgres(String... command) {
        List<String> full = new ArrayList<>();
        if (asRoot()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(List.of(command));
        return full;
    }

    private static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static void run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Path binDirectory() {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("postgres")))
                    .max(Comparator.naturalOrder())
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL server: install Debian's postgresql (./test.sh does)"));
        } catch (IOException e) {
            throw new UncheckedIOException("no PostgreSQL server: install Debian's postgresql (./test.sh does)", e);
        }
    }

    /** Open, and past "the database system is starting up". */
    private boolean acceptsQueries() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        } catch (IOException e) {
            return false;
        }
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl(), credentials())) {
            return c.isValid(2);
        } catch (java.sql.SQLException e) {
            return false;
        }
    }

    private static int freePort() {
        return FreePorts.next();
    }
}
