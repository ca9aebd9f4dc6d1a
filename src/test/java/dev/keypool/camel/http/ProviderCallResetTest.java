package dev.keypool.camel.http;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.keypool.camel.pipeline.BoundedAnswers;
import dev.keypool.config.ProviderConfig.Http2;
import dev.keypool.gateway.AnswerTooLarge;
import dev.keypool.testing.FakeUpstream;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.impl.ContextInternal;
import io.vertx.core.impl.VertxInternal;
import io.vertx.ext.web.client.WebClientOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An answer the gateway refuses to read to its end, over the shared client of plain HTTP/1.1 with a pool of one
 * connection per provider: a plain answer over the answers' bound (the codec of {@link BoundedAnswers}) and a stream
 * call's answer of another status than 2xx over it ({@link RefusedAnswer}). When the chunk that crossed the bound was
 * the answer's last, the connection goes back to the pool, and the next call, waiting for it, is served on it; when
 * the answer is still coming, its connection is closed.
 *
 * <p>The connection is opened by a call on one event loop, the refused call runs on another, as calls from the
 * gateway's answer threads do: the connection reads the answer on its own loop and hands it to the other.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProviderCallResetTest {

    private static final String STREAM = "{\"model\":\"gpt-4o-mini\",\"stream\":true,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final int MAX_ANSWER = 1024;
    /** Read in one go with its end: the bound is crossed by the answer's last chunk. */
    private static final String ENDS_OVER_THE_BOUND = "x".repeat(4 * MAX_ANSWER);
    /** Far more than the connection reads ahead of the answer's handlers. */
    private static final int STILL_COMING = 4 << 20;

    private final FakeUpstream upstream = new FakeUpstream();
    private final Vertx vertx = Vertx.vertx();
    private final ContextInternal connectionLoop = ((VertxInternal) vertx).createEventLoopContext();
    private final ContextInternal callerLoop = ((VertxInternal) vertx).createEventLoopContext();
    private UpstreamClients.Client client;
    private UpstreamClients clients;

    @AfterAll
    void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
        upstream.close();
    }

    /** Each test its own pool, whose one connection is opened on the connection's loop. */
    @BeforeEach
    void start() throws Exception {
        assertThat(callerLoop.nettyEventLoop()).isNotSameAs(connectionLoop.nettyEventLoop());
        upstream.restore();
        clients = new UpstreamClients(vertx, new WebClientOptions().setMaxPoolSize(1), 1, 30_000);
        client = clients.client(new UpstreamClients.Transport(false, Http2.OFF, null));
        assertThat(on(connectionLoop, () -> plainCall("sk-open")).get(10, TimeUnit.SECONDS)).isEqualTo(200);
    }

    @AfterEach
    void closeClients() {
        clients.close();
    }

    @Test
    void should_leave_the_connection_to_the_next_call_when_a_plain_answer_ends_with_the_chunk_over_its_bound()
            throws Exception {
        upstream.answer("sk-over", 200, null, ENDS_OVER_THE_BOUND);
        upstream.holdAnswers();
        CompletableFuture<Integer> over = on(callerLoop, () -> boundedCall("sk-over"));
        await().atMost(10, TimeUnit.SECONDS).until(() -> upstream.heldAnswers() == 1);

        CompletableFuture<Integer> next = plainCall("sk-next").toCompletionStage().toCompletableFuture();
        upstream.releaseAnswers();

        assertThat(over).failsWithin(10, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(AnswerTooLarge.class);
        assertThat(next.get(10, TimeUnit.SECONDS)).as("the next call, on the connection the answer left").isEqualTo(200);
        assertThat(upstream.connectionsOpened()).isEqualTo(1);
    }

    @Test
    void should_leave_the_connection_to_the_next_call_when_a_refused_stream_answer_ends_with_the_chunk_over_its_bound()
            throws Exception {
        upstream.answer("sk-refused", 500, null, ENDS_OVER_THE_BOUND);
        upstream.holdAnswers();
        CompletableFuture<Integer> refused = on(callerLoop, () -> refusedStream("sk-refused"));
        await().atMost(10, TimeUnit.SECONDS).until(() -> upstream.heldAnswers() == 1);

        CompletableFuture<Integer> next = plainCall("sk-next").toCompletionStage().toCompletableFuture();
        upstream.releaseAnswers();

        assertThat(refused).failsWithin(10, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(AnswerTooLarge.class);
        assertThat(next.get(10, TimeUnit.SECONDS)).as("the next call, on the connection the answer left").isEqualTo(200);
        assertThat(upstream.connectionsOpened()).isEqualTo(1);
    }

    @Test
    void should_close_the_connection_of_a_plain_answer_still_coming_over_its_bound() throws Exception {
        upstream.hugeAnswer("sk-huge", STILL_COMING);

        assertThat(on(callerLoop, () -> boundedCall("sk-huge"))).failsWithin(10, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(AnswerTooLarge.class);

        await().atMost(10, TimeUnit.SECONDS).until(() -> upstream.hugeAnswersCut() == 1);
        assertThat(plainCall("sk-next").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS))
                .isEqualTo(200);
        assertThat(upstream.connectionsOpened()).as("a new connection for the next call").isEqualTo(2);
    }

    @Test
    void should_close_the_connection_of_a_refused_stream_answer_still_coming_over_its_bound() throws Exception {
        upstream.answer("sk-huge-refused", 500, null, "x".repeat(STILL_COMING));

        assertThat(on(callerLoop, () -> refusedStream("sk-huge-refused"))).failsWithin(10, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(AnswerTooLarge.class);

        assertThat(plainCall("sk-next").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS))
                .isEqualTo(200);
        assertThat(upstream.connectionsOpened()).as("a new connection for the next call").isEqualTo(2);
    }

    /** The call made on the event loop of {@code context}, as a request thread's call runs on its own. */
    private static <T> CompletableFuture<T> on(Context context, Supplier<Future<T>> call) {
        Promise<T> result = Promise.promise();
        context.runOnContext(v -> call.get().onComplete(result));
        return result.future().toCompletionStage().toCompletableFuture();
    }

    /** A plain call as UpstreamHttpComponent makes one: on the web client, its answer read within the bound. */
    private Future<Integer> boundedCall(String key) {
        return new BoundedAnswers(MAX_ANSWER)
                .bounded(client.web().post(upstream.port(), "127.0.0.1", "/v1/chat/completions")
                        .putHeader("Authorization", "Bearer " + key).putHeader("Content-Type", "application/json"))
                .sendBuffer(Buffer.buffer(CHAT))
                .map(response -> response.statusCode());
    }

    /** A stream call answered with another status than 2xx, read as UpstreamHttpComponent reads one. */
    private Future<Integer> refusedStream(String key) {
        return client.http().request(options(key))
                .compose(request -> request.send(Buffer.buffer(STREAM)).compose(head -> {
                    Promise<Integer> refused = Promise.promise();
                    RefusedAnswer.read(request, head, "http://127.0.0.1:" + upstream.port(), MAX_ANSWER, refused);
                    return refused.future();
                }));
    }

    /** The body asked for in the answer's own callback, on its event loop: asked later, its end may have gone by. */
    private Future<Integer> plainCall(String key) {
        return client.http().request(options(key))
                .compose(request -> request.send(Buffer.buffer(CHAT))
                        .compose(response -> response.body().map(body -> response.statusCode())));
    }

    private RequestOptions options(String key) {
        return new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(upstream.port())
                .setURI("/v1/chat/completions").putHeader("Authorization", "Bearer " + key)
                .putHeader("Content-Type", "application/json");
    }
}
