import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;

/**
 * The least a gateway on Vert.x does, as the reference of bench/run.sh inflight10k and streams: read the client's
 * body, POST it to the provider on a pooled connection, answer with the provider's status and body; a stream (the
 * provider answers text/event-stream) is piped to the client chunk by chunk as it comes. No routing, no keys, no
 * breaker, no Camel: what the bursts and a stream's first event cost on this machine before KeyPool's own work. Run
 * with the gateway's own Vert.x and Netty (target/lib), in source-file mode:
 * {@code java -cp "target/lib/*" bench/BareProxy.java PORT UPSTREAM_PORT}.
 */
public class BareProxy {

    public static void main(String[] args) {
        int port = Integer.parseInt(args[0]);
        int upstream = Integer.parseInt(args[1]);
        Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
        // as the gateway's provider pool: keep-alive, as many connections as requests in flight
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(20_000).setMaxWaitQueueSize(-1));
        vertx.createHttpServer(new HttpServerOptions().setAcceptBacklog(65_535))
                .requestHandler(request -> request.body().onSuccess(body -> client
                        .request(HttpMethod.POST, upstream, "127.0.0.1", request.path())
                        .compose(call -> call.putHeader("Content-Type", "application/json")
                                .putHeader("Authorization", "Bearer bare-proxy-key").send(body))
                        .compose(answer -> {
                            String type = answer.getHeader("Content-Type");
                            if (type != null && type.startsWith("text/event-stream")) {
                                // chunked, each chunk written as it is read (the pipe's back-pressure as Vert.x's own)
                                return request.response().setStatusCode(answer.statusCode())
                                        .putHeader("Content-Type", type).send(answer);
                            }
                            return answer.body().<Void>map(answerBody -> {
                                request.response().setStatusCode(answer.statusCode())
                                        .putHeader("Content-Type", "application/json").end(answerBody);
                                return null;
                            });
                        })
                        .onFailure(failure -> {
                            if (!request.response().headWritten()) {
                                request.response().setStatusCode(502).end(String.valueOf(failure));
                            } else {
                                request.connection().close();
                            }
                        })))
                .listen(port, "127.0.0.1")
                .onSuccess(server -> System.out.println("bare proxy on " + port + " -> " + upstream))
                .onFailure(failure -> {
                    failure.printStackTrace();
                    System.exit(1);
                });
    }
}
