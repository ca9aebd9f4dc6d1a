package dev.keypool.state;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A state file is written aside under a name of its own, forced, renamed, and its directory forced. Whether the disk
 * really kept the bytes (fsync) cannot be observed from a test; what is checked is that force is called on the
 * temporary file before the rename and on the directory after it.
 */
class StateFilesTest {

    @TempDir
    Path dir;

    @Test
    void should_give_two_writers_of_one_file_each_its_own_temporary_file() throws Exception {
        Path target = dir.resolve("task.json");
        Set<Path> temps = ConcurrentHashMap.newKeySet();
        List<Path> forced = new CopyOnWriteArrayList<>();
        StateFiles.Sync sync = (channel, path) -> {
            forced.add(path);
            if (!path.equals(dir)) {
                temps.add(path);
            }
        };
        byte[] a = "a".repeat(256 * 1024).getBytes(StandardCharsets.UTF_8);
        byte[] b = "b".repeat(256 * 1024).getBytes(StandardCharsets.UTF_8);
        int writes = 100;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService writers = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (byte[] content : List.of(a, b)) {
                done.add(writers.submit(() -> {
                    start.await();
                    for (int i = 0; i < writes; i++) {
                        StateFiles.replace(target, content, sync);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();   // a writer whose temporary file the other renamed away fails here
            }
        } finally {
            writers.shutdownNow();
        }
        assertThat(temps).hasSize(2 * writes);
        assertThat(Files.readAllBytes(target)).satisfiesAnyOf(c -> assertThat(c).isEqualTo(a), c -> assertThat(c).isEqualTo(b));
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).containsExactly(target);
        }
    }

    @Test
    void should_force_the_file_before_the_rename_and_the_directory_after() throws Exception {
        Path target = dir.resolve("quota.json");
        Files.writeString(target, "old");
        List<String> steps = new ArrayList<>();
        StateFiles.replace(target, "new".getBytes(StandardCharsets.UTF_8), (channel, path) -> {
            steps.add((path.equals(dir) ? "dir" : "file") + " target=" + Files.readString(target));
            channel.force(true);
        });
        assertThat(steps).containsExactly("file target=old", "dir target=new");
        assertThat(Files.readString(target)).isEqualTo("new");
    }
}
