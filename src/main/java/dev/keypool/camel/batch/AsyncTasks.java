package dev.keypool.camel.batch;

import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.batch.AsyncTask;
import dev.keypool.batch.StorageLimitException;
import dev.keypool.batch.TaskStore;
import dev.keypool.camel.pipeline.ClientRequest;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.gateway.GatewayError;
import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * Async requests (design §12): {@code X-KeyPool-Async: true} stores the request and answers 202 with a task id; the
 * task-run route sends it through the gateway core for its tenant; {@code GET /v1/tasks/{id}} answers where it is
 * and, when done, the answer.
 */
public final class AsyncTasks {

    /** The request header that asks for an async answer. */
    public static final String HEADER = "X-KeyPool-Async";

    private final TaskStore tasks;
    private final ObjectMapper mapper;

    public AsyncTasks(TaskStore tasks, ObjectMapper mapper) {
        this.tasks = tasks;
        this.mapper = mapper;
    }

    /**
     * Before the request is read: 429 at once when the tenant has batch.max-queued-tasks tasks waiting or running, or
     * its stored bytes and this request's Content-Length pass batch.max-stored-bytes.
     */
    public void checkRoom(Exchange exchange) {
        Long length = exchange.getMessage().getHeader(Exchange.CONTENT_LENGTH, Long.class);
        try {
            tasks.checkRoom(BatchApi.owner(exchange), length == null ? 0 : length);
        } catch (StorageLimitException refused) {
            throw BatchApi.refused(refused);
        }
    }

    /**
     * After the request was read (requestPlanner.read: 400/413 come at once): the task, queued, and 202
     * {@code {"id":"task_…","object":"keypool.task","status":"queued"}}. kpTaskId names it for the task queue.
     */
    public void submit(Exchange exchange) {
        ClientRequest request = exchange.getProperty(Exchanges.CLIENT_REQUEST, ClientRequest.class);
        if (request.stream()) {
            throw GatewayError.badRequest("invalid_request", "An async request cannot stream: drop \"stream\": true or "
                    + HEADER);
        }
        AsyncTask task;
        try {
            task = tasks.submit(BatchApi.owner(exchange), request.endpoint(), exchange.getProperty(Exchanges.API, String.class),
                    exchange.getMessage().getBody(byte[].class));
        } catch (StorageLimitException refused) {
            throw BatchApi.refused(refused);
        }
        // the request is on disk: the task queue's copy of this exchange must not hold it in memory
        exchange.removeProperty(Exchanges.CLIENT_REQUEST);
        exchange.setProperty(Exchanges.TASK_ID, task.id());
        answer(exchange, 202, task);
    }

    /**
     * Makes the queued task named by kpTaskId a request for the gateway core, for its tenant; in_progress. Its answer,
     * whatever it is, becomes the task's when the exchange completes: the gateway core answers its own errors
     * (gateway-errors), which ends the route there, so no later step would see them.
     */
    public void prepare(Exchange exchange) {
        AsyncTask task = tasks.start(exchange.getProperty(Exchanges.TASK_ID, String.class)).orElseThrow(() ->
                new IllegalStateException("no task " + exchange.getProperty(Exchanges.TASK_ID) + " to run"));
        exchange.setProperty(Exchanges.ENDPOINT, task.endpoint());
        exchange.setProperty(Exchanges.API, task.api());
        if (task.owner() != null) {
            exchange.setProperty(Exchanges.NAMED_TENANT, task.owner());
        }
        exchange.getMessage().removeHeaders("*");
        exchange.getMessage().setBody(tasks.request(task.id()));
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                record(done, task.id());
            }
        });
    }

    /** The gateway core's answer becomes the task's: completed for a 2xx, failed otherwise. */
    private void record(Exchange exchange, String id) {
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (exchange.getException() != null) {
            status = 500;
        }
        // nothing when it expired meanwhile
        tasks.finish(id, status == null ? 200 : status, BatchJson.body(mapper, exchange.getMessage().getBody(byte[].class)));
    }

    /** GET /v1/tasks/{id}: the task of the caller's tenant, 404 for another's, an unknown or an expired one. */
    public void get(Exchange exchange) {
        String id = exchange.getMessage().getHeader("id", String.class);
        AsyncTask task = tasks.get(id).filter(t -> Objects.equals(t.owner(), BatchApi.owner(exchange)))
                .orElseThrow(() -> new GatewayError(404, "invalid_request_error", "not_found",
                        "No task with id '" + id + "'", null));
        answer(exchange, 200, task);
    }

    /** Tasks accepted and not done when the gateway last stopped, by id, to queue again (once). */
    public List<String> leftOver() {
        return tasks.leftOver().stream().map(AsyncTask::id).toList();
    }

    /** Forgets tasks past batch.retention. */
    public void expire() {
        tasks.expire();
    }

    private void answer(Exchange exchange, int status, AsyncTask task) {
        BatchJson.answer(exchange, mapper, status, task.toJson(mapper));
    }
}
