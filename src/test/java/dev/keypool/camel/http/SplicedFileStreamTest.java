package dev.keypool.camel.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.keypool.gateway.SplicedFile;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A spooled upload read through Vert.x with one range replaced: the bytes come out as if the file had been edited,
 * also when the range straddles the file's read chunks (Vert.x reads 8 KiB at a time), and each stream opened on the
 * file reads it from the start.
 */
class SplicedFileStreamTest {

    private final Vertx vertx = Vertx.vertx();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        vertx.close();
    }

    @Test
    void should_read_the_file_with_the_range_replaced_across_chunk_boundaries() throws Exception {
        byte[] content = new byte[100_000];
        new Random(3).nextBytes(content);
        Path file = Files.write(dir.resolve("upload"), content);
        byte[] replacement = "whisper-large-v3".getBytes(StandardCharsets.UTF_8);
        // [8190, 8200) straddles the first two 8 KiB chunks
        SplicedFile spliced = new SplicedFile(file, content.length, 8190, 8200, replacement);

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write(content, 0, 8190);
        expected.write(replacement);
        expected.write(content, 8200, content.length - 8200);

        assertThat(read(spliced)).isEqualTo(expected.toByteArray()).hasSize((int) spliced.length());
        // a second stream (a retry) reads the same bytes again
        assertThat(read(spliced)).isEqualTo(expected.toByteArray());
        assertThat(read(SplicedFile.whole(file, content.length))).isEqualTo(content);
    }

    private byte[] read(SplicedFile body) throws Exception {
        CompletableFuture<byte[]> done = new CompletableFuture<>();
        Buffer collected = Buffer.buffer();
        SplicedFileStream stream = SplicedFileStream.open(vertx, body);
        stream.exceptionHandler(done::completeExceptionally);
        stream.endHandler(v -> done.complete(collected.getBytes()));
        stream.handler(collected::appendBuffer);
        return done.get(10, TimeUnit.SECONDS);
    }
}
