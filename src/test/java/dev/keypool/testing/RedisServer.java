package dev.keypool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import static org.awaitility.Awaitility.await;

/**
 * A real redis-server (Debian's {@code redis-server}, installed by {@code ./test.sh}) on a free loopback port, started
 * by the test and never assumed to be running: no persistence, killed with {@code kill -9} when asked, and started
 * again on the same port. A client of its own reads what KeyPool wrote.
 */
public final class RedisServer implements AutoCloseable {

    private final int port;
    /** Further redis-server options ({@code --requirepass}, {@code --user}), kept for a restart. */
    private List<String> options = List.of();
    private Process process;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;

    private RedisServer(int port) {
        this.port = port;
    }

    /** Starts a server on a free port and waits until it accepts connections. */
    public static RedisServer start() {
        RedisServer server = new RedisServer(freePort());
        server.restart();
        return server;
    }

    /**
     * Starts a server with further options, such as {@code "--requirepass", "pw"} or an ACL user
     * {@code "--user", "alice", "on", ">pw", "~*", "&*", "+@all"}; {@link #commands()} then needs no password only
     * when the default user has none.
     */
    public static RedisServer start(String... options) {
        RedisServer server = new RedisServer(freePort());
        server.options = List.of(options);
        server.restart();
        return server;
    }

    public int port() {
        return port;
    }

    /** The {@code redis:} block's URL. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** Starts the server again, empty, on the same port (after {@link #kill()}). */
    public void restart() {
        try {
            List<String> command = new ArrayList<>(List.of("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no"));
            command.addAll(options);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new UncheckedIOException("redis-server not found: install Debian's redis-server (./test.sh does)", e);
        }
        // a redis-server left by a crashed run would answer on a port of its own, never this free one
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited with " + process.exitValue());
            }
            return accepts();
        });
    }

    /** {@code kill -9}: gone at once, with everything it held. */
    public void kill() {
        closeClient();
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The server's own commands, for a test to read or change what is stored. */
    public RedisCommands<String, String> commands() {
        if (connection == null || !connection.isOpen()) {
            closeClient();
            client = RedisClient.create("redis://127.0.0.1:" + port);
            connection = client.connect();
        }
        return connection.sync();
    }

    /**
     * Calls per command since the server started or the last {@code CONFIG RESETSTAT}, commands a script ran
     * included, without the INFO and CONFIG calls of tests.
     */
    public Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        Matcher m = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)").matcher(commands().info("commandstats"));
        while (m.find()) {
            if (!m.group(1).equals("info") && !m.group(1).startsWith("config")) {
                calls.put(m.group(1), Long.parseLong(m.group(2)));
            }
        }
        return calls;
    }

    /** Every key and, for strings, hashes, lists, sets and sorted sets, every value in it: for leak checks. */
    public Map<String, String> dump() {
        RedisCommands<String, String> redis = commands();
        Map<String, String> all = new TreeMap<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.limit(500));
            for (String key : page.getKeys()) {
                all.put(key, switch (redis.type(key)) {
                    case "string" -> redis.get(key);
                    case "hash" -> redis.hgetall(key).toString();
                    case "list" -> redis.lrange(key, 0, -1).toString();
                    case "set" -> redis.smembers(key).toString();
                    case "zset" -> redis.zrangeWithScores(key, 0, -1).toString();
                    default -> "";
                });
            }
            cursor = page;
        } while (!cursor.isFinished());
        return all;
    }

    @Override
    public void close() {
        kill();
    }

    private void closeClient() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            client = null;
        }
    }

    private boolean accepts() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() {
        return FreePorts.next();
    }
}
