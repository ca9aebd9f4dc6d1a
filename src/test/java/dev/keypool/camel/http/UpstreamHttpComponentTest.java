package dev.keypool.camel.http;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.testing.FakeUpstream;
import dev.keypool.testing.LogCapture;
import io.vertx.core.VertxException;
import io.vertx.core.http.StreamResetException;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.apache.camel.builder.Builder.constant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * vertx-http as the provider calls use it: the answer is handled on a thread of the {@code answers} executor, not
 * on the Vert.x event loop that read it (but a success whose route's end only writes the answer, with nothing blocking
 * after it), and a client that hangs up cancels the call in flight.
 */
class UpstreamHttpComponentTest {

    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @RegisterExtension
    final LogCapture logs = LogCapture.attach();
    private final FakeUpstream upstream = new FakeUpstream();
    private final AtomicInteger handedOver = new AtomicInteger();
    private final ExecutorService answerThreads = Executors.newCachedThreadPool(r -> new Thread(r, "answer-test"));
    private CamelContext context;
    private ProducerTemplate template;

    @BeforeEach
    void start() throws Exception {
        context = new DefaultCamelContext();
        context.addComponent("vertx-http", new UpstreamHttpComponent(task -> {
            handedOver.incrementAndGet();
            answerThreads.execute(task);
        }, true, 64L << 20, 4, 30_000));
        // a lambda, not a RouteBuilder subclass: Camel Main in the other tests scans this package for those
        RouteBuilder.addRoutes(context, routes -> {
            routes.from("direct:call")
                    .setHeader("Authorization", constant("Bearer key-1"))
                    .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
                    .to("vertx-http:" + upstream.baseUrl() + "/chat/completions?httpMethod=POST")
                    .process(e -> e.setProperty("answeredOn", Thread.currentThread().getName()));
            routes.from("direct:failed-call")
                    .onException(Exception.class).handled(true)
                        .process(e -> e.setProperty("answeredOn", Thread.currentThread().getName()))
                    .end()
                    .setHeader("Authorization", constant("Bearer key-1"))
                    .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
                    .to("vertx-http:" + upstream.baseUrl() + "/chat/completions?httpMethod=POST");
        });
        context.start();
        template = context.createProducerTemplate();
    }

    @AfterEach
    void stop() {
        context.stop();
        answerThreads.shutdownNow();
        upstream.close();
    }

    @Test
    void should_handle_the_answer_on_an_answer_thread_not_on_the_event_loop() {
        upstream.slow("key-1", 200);

        Exchange done = template.request("direct:call", e -> e.getMessage().setBody(CHAT));

        assertThat(done.getException()).isNull();
        assertThat(done.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class)).isEqualTo(200);
        assertThat(done.getMessage().getBody(String.class)).contains("chat.completion");
        assertThat(done.getProperty("answeredOn", String.class)).isEqualTo("answer-test");
        assertThat(handedOver).hasValue(1);
    }

    @Test
    void should_handle_a_success_on_the_event_loop_that_read_it_when_only_the_answers_write_follows() {
        Exchange done = template.request("direct:call", e -> {
            e.setProperty(Exchanges.ANSWERED_AT_ROUTE_END, true);
            e.getMessage().setBody(CHAT);
        });

        assertThat(done.getException()).isNull();
        assertThat(done.getMessage().getBody(String.class)).contains("chat.completion");
        assertThat(done.getProperty("answeredOn", String.class)).startsWith("vert.x-eventloop-thread");
        assertThat(handedOver).as("answers handed to another thread").hasValue(0);
    }

    @Test
    void should_hand_a_large_success_to_an_answer_thread_even_when_only_the_answers_write_follows() {
        String large = "{\"object\":\"chat.completion\",\"pad\":\"" + "x".repeat(UpstreamHttpComponent.EVENT_LOOP_ANSWER_BYTES)
                + "\"}";
        upstream.answer("key-1", 200, null, large);

        Exchange done = template.request("direct:call", e -> {
            e.setProperty(Exchanges.ANSWERED_AT_ROUTE_END, true);
            e.getMessage().setBody(CHAT);
        });

        // handling it on the event loop would hold every other connection of that loop for its size
        assertThat(done.getException()).isNull();
        assertThat(done.getMessage().getBody(String.class)).hasSize(large.length());
        assertThat(done.getProperty("answeredOn", String.class)).isEqualTo("answer-test");
        assertThat(handedOver).hasValue(1);
    }

    @Test
    void should_hand_a_failed_call_to_an_answer_thread_even_when_only_the_answers_write_follows() {
        upstream.answer("key-1", 500);

        Exchange done = template.request("direct:failed-call", e -> {
            e.setProperty(Exchanges.ANSWERED_AT_ROUTE_END, true);
            e.getMessage().setBody(CHAT);
        });

        // its retries would sleep and pick keys on the event loop
        assertThat(done.getProperty(Exchange.EXCEPTION_CAUGHT)).isNotNull();
        assertThat(done.getProperty("answeredOn", String.class)).isEqualTo("answer-test");
        assertThat(handedOver).hasValue(1);
    }

    @Test
    void should_cancel_the_call_in_flight_when_the_client_hangs_up() throws Exception {
        upstream.holdAnswers();
        ClientHangup hangup = new ClientHangup();
        CompletableFuture<Exchange> done = template.asyncSend("direct:call", e -> {
            e.setProperty(Exchanges.CLIENT_GONE, hangup);
            e.getMessage().setBody(CHAT);
        });
        await().atMost(10, TimeUnit.SECONDS).until(() -> upstream.heldAnswers() == 1);

        hangup.hangUp();

        // without the cancel, the exchange would wait for an answer the provider never sends
        Exchange failed = done.get(10, TimeUnit.SECONDS);
        assertThat(failed.getException()).isInstanceOfAny(VertxException.class, IOException.class);
        assertThat(upstream.heldAnswers()).as("the provider never answered").isEqualTo(1);
    }

    @Test
    void should_not_send_a_call_whose_client_hung_up_before_it_went_out() {
        ClientHangup hangup = new ClientHangup();
        hangup.hangUp();

        Exchange failed = template.send("direct:call", e -> {
            e.setProperty(Exchanges.CLIENT_GONE, hangup);
            e.getMessage().setBody(CHAT);
        });

        assertThat(failed.getException()).isInstanceOf(StreamResetException.class);
        assertThat(upstream.totalHits()).as("calls the provider received").isZero();
        // a client hanging up is no error of the gateway's: Vert.x logged such a reset as one ("Stream reset: 0"),
        // and before that the send went on with the request it had dropped (a NullPointerException)
        assertThat(logs.events()).filteredOn(line -> line.level() == Level.ERROR && line.logger().startsWith("io.vertx"))
                .isEmpty();
    }
}
