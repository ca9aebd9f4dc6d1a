package dev.keypool.camel.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.keypool.config.ProviderConfig.Http2;
import dev.keypool.testing.FakeUpstream;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.ext.web.client.WebClientOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A provider's stream as the relay reads it, over the shared client of plain HTTP/1.1 with a pool of one connection
 * per provider, so that the next call must take the connection a closed stream leaves: closing a stream resets the
 * provider's call only while the provider is still sending it, never the connection once it carries the next call.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UpstreamStreamTest {

    private static final String STREAM = "{\"model\":\"gpt-4o-mini\",\"stream\":true,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    /** Past the bytes at which the stream pauses its response, and short of what Vert.x holds before it stops reading. */
    private static final int EVENT_BYTES = UpstreamStream.PAUSE_AT + 32 * 1024;

    private final FakeUpstream upstream = new FakeUpstream();
    private final Vertx vertx = Vertx.vertx();
    private UpstreamClients clients;
    private HttpClient client;

    @AfterAll
    void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
        upstream.close();
    }

    /** Each test its own pool, so that one whose connection broke leaves the next a pool as new. */
    @BeforeEach
    void start() {
        upstream.restore();
        clients = new UpstreamClients(vertx, new WebClientOptions().setMaxPoolSize(1), 1, 30_000);
        client = clients.client(new UpstreamClients.Transport(false, Http2.OFF, null)).http();
    }

    @AfterEach
    void closeClients() {
        clients.close();
    }

    @Test
    void should_leave_the_connection_to_the_next_call_when_a_stream_is_closed_after_its_whole_answer_arrived()
            throws Exception {
        upstream.hugeEvent("sk-whole", 0, EVENT_BYTES);
        InputStream stream = open("sk-whole");
        upstream.holdAnswers();

        // unread, the stream paused its response; the connection read the rest and went back to the pool, since the
        // next call, which waits for the pool's one connection, reaches the provider
        CompletableFuture<Integer> next = plainCall("sk-next");
        await().atMost(10, TimeUnit.SECONDS).until(() -> upstream.heldAnswers() == 1);
        stream.close();
        upstream.releaseAnswers();

        assertThat(next.get(10, TimeUnit.SECONDS)).as("the next call, on the connection the stream left").isEqualTo(200);
        assertThat(upstream.connectionsOpened()).isEqualTo(1);
        assertThatThrownBy(() -> stream.read(new byte[16], 0, 16)).isInstanceOf(IOException.class);
    }

    @Test
    void should_reset_a_stream_the_provider_is_still_sending_and_wake_its_reader() throws Exception {
        upstream.endlessStream("sk-endless");
        InputStream stream = open("sk-endless");
        assertThat(stream.read(new byte[64], 0, 64)).isPositive();
        CompletableFuture<Throwable> reader = CompletableFuture.supplyAsync(() -> readToTheEnd(stream));

        stream.close();

        assertThat(reader.get(10, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
        // over HTTP/1.1 the reset closes the connection, which the provider sees
        await().atMost(10, TimeUnit.SECONDS).until(() -> upstream.streamsCancelled() == 1);
        assertThat(plainCall("sk-next").get(10, TimeUnit.SECONDS)).isEqualTo(200);
        assertThat(upstream.connectionsOpened()).as("a new connection for the next call").isEqualTo(2);
    }

    @Test
    void should_read_a_whole_stream_and_give_its_connection_to_the_next_call() throws Exception {
        upstream.hugeEvent("sk-read", 0, EVENT_BYTES);
        InputStream stream = open("sk-read");

        String answer = new String(stream.readAllBytes());
        stream.close();

        assertThat(answer).contains("data: [DONE]").hasSizeGreaterThan(EVENT_BYTES);
        assertThat(plainCall("sk-next").get(10, TimeUnit.SECONDS)).isEqualTo(200);
        assertThat(upstream.connectionsOpened()).isEqualTo(1);
    }

    /** The relay reads what has come without waiting, and waits for the rest holding nothing ({@code SseEventBuffer}). */
    @Test
    void should_tell_what_a_read_takes_without_waiting() throws Exception {
        upstream.endlessStream("sk-ready");
        InputStream stream = open("sk-ready");

        assertThat(stream.read()).as("the first byte, waited for").isNotNegative();
        int ready = stream.available();
        assertThat(ready).as("the rest of the chunk it came in").isPositive();
        assertThat(stream.read(new byte[ready], 0, ready)).isEqualTo(ready);
        stream.close();
        await().atMost(10, TimeUnit.SECONDS).until(() -> upstream.streamsCancelled() == 1);
    }

    /** The relay writes a first event on the event loop when its bytes are here, and may not wait there for them. */
    @Test
    void should_count_the_chunks_that_came_while_nothing_read() throws Exception {
        upstream.endlessStream("sk-queued");
        InputStream stream = open("sk-queued");

        await().atMost(10, TimeUnit.SECONDS).until(() -> stream.available() > 0);
        int ready = stream.available();
        assertThat(stream.read(new byte[ready], 0, ready)).as("all of it read without waiting").isEqualTo(ready);
        stream.close();
        // the provider sees its call reset before the next test counts
        await().atMost(10, TimeUnit.SECONDS).until(() -> upstream.streamsCancelled() == 1);
    }

    /** The provider call is answered once there is something to read, so that the first event is at hand. */
    @Test
    void should_tell_when_its_first_bytes_have_come() throws Exception {
        upstream.endlessStream("sk-first");
        CompletableFuture<Integer> readyAtFirstBytes = new CompletableFuture<>();
        client.request(options("sk-first"))
                .compose(request -> request.send(Buffer.buffer(STREAM)).map(head -> new UpstreamStream(request, head, 10_000)))
                .onSuccess(stream -> stream.whenMoreArrives(() -> {
                    try {
                        readyAtFirstBytes.complete(stream.available());
                    } catch (IOException e) {
                        readyAtFirstBytes.completeExceptionally(e);
                    } finally {
                        stream.close();
                    }
                }));

        assertThat(readyAtFirstBytes.get(10, TimeUnit.SECONDS)).as("bytes to read at once").isPositive();
        await().atMost(10, TimeUnit.SECONDS).until(() -> upstream.streamsCancelled() == 1);
    }

    private static Throwable readToTheEnd(InputStream stream) {
        byte[] into = new byte[4096];
        try {
            while (stream.read(into, 0, into.length) >= 0) {
                // the provider's events, until the stream is closed under the read
            }
            return null;
        } catch (IOException e) {
            return e;
        }
    }

    /** A stream call as UpstreamHttpComponent makes one: the stream made on the event loop its answer's head came on. */
    private InputStream open(String key) throws Exception {
        return client.request(options(key))
                .compose(request -> request.send(Buffer.buffer(STREAM))
                        .map(head -> (InputStream) new UpstreamStream(request, head, 10_000)))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** The body asked for in the answer's own callback, on its event loop: asked later, its end may have gone by. */
    private CompletableFuture<Integer> plainCall(String key) {
        Future<Integer> status = client.request(options(key))
                .compose(request -> request.send(Buffer.buffer(CHAT))
                        .compose(response -> response.body().map(body -> response.statusCode())));
        return status.toCompletionStage().toCompletableFuture();
    }

    private RequestOptions options(String key) {
        return new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(upstream.port())
                .setURI("/v1/chat/completions").putHeader("Authorization", "Bearer " + key)
                .putHeader("Content-Type", "application/json");
    }
}
