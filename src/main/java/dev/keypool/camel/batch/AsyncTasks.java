package dev.keypool.camel.batch;

import java.time.Clock;
import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.batch.AsyncTask;
import dev.keypool.batch.Claimant;
import dev.keypool.batch.StorageLimitException;
import dev.keypool.batch.TaskStore;
import dev.keypool.camel.pipeline.ClientRequest;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.gateway.GatewayError;
import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * Async requests (design §12): {@code X-KeyPool-Async: true} stores the request under this instance's lease and
 * answers 202 with a task id; the task-run route sends it through the gateway core for its tenant;
 * {@code GET /v1/tasks/{id}} answers where it is and, when done, the answer, through any instance. The heartbeat
 * renews the leases of the tasks queued and running here, and claims those whose instance's lease ran out.
 */
public final class AsyncTasks {

    /** The request header that asks for an async answer. */
    public static final String HEADER = "X-KeyPool-Async";
    /** The task a task-run exchange runs, once started. */
    static final String TASK = "kpTask";
    /** The most tasks one heartbeat claims from instances gone: more wait for the next. */
    static final int CLAIMS_PER_HEARTBEAT = 1000;

    private final TaskStore tasks;
    private final ObjectMapper mapper;
    private final Clock clock;
    private final Claimant claimant;

    public AsyncTasks(TaskStore tasks, ObjectMapper mapper, Clock clock, Claimant claimant) {
        this.tasks = tasks;
        this.mapper = mapper;
        this.clock = clock;
        this.claimant = claimant;
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
                    exchange.getMessage().getBody(byte[].class), claimant);
        } catch (StorageLimitException refused) {
            throw BatchApi.refused(refused);
        }
        // the request is on disk: the task queue's copy of this exchange must not hold it in memory
        exchange.removeProperty(Exchanges.CLIENT_REQUEST);
        exchange.setProperty(Exchanges.TASK_ID, task.id());
        answer(exchange, 202, task);
    }

    /**
     * Starts the task named by kpTaskId on this instance (in_progress); false when it is done already, gone, or
     * claimed by another instance meanwhile (this one's lease ran out): that one runs it. False too once the gateway
     * stops: the tasks still queued here are not run by the stop but handed over with its leases (BatchBeans).
     */
    public boolean start(Exchange exchange) {
        if (exchange.getContext().isStopping()) {
            return false;
        }
        return tasks.start(exchange.getProperty(Exchanges.TASK_ID, String.class), claimant)
                .map(task -> {
                    exchange.setProperty(TASK, task);
                    return true;
                }).orElse(false);
    }

    /**
     * Makes the started task a request for the gateway core, for its tenant. Its answer, whatever it is, becomes the
     * task's when the exchange completes: the gateway core answers its own errors (gateway-errors), which ends the
     * route there, so no later step would see them.
     */
    public void prepare(Exchange exchange) {
        AsyncTask task = exchange.getProperty(TASK, AsyncTask.class);
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
        // nothing when it expired meanwhile, or another instance answered it first
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

    /** The heartbeat: extends the leases of the tasks queued and running here. */
    public void renew() {
        tasks.renew(claimant, clock.instant());
    }

    /**
     * Claims the tasks not done whose instance's lease ran out (killed, or stopped before they were done; at startup,
     * the tasks a gateway alone on its disk left), by id, to queue here.
     */
    public List<String> claimLeftOver() {
        return tasks.claim(claimant, clock.instant(), CLAIMS_PER_HEARTBEAT);
    }

    /** Forgets tasks past batch.retention. */
    public void expire() {
        tasks.expire();
    }

    private void answer(Exchange exchange, int status, AsyncTask task) {
        BatchJson.answer(exchange, mapper, status, task.toJson(mapper));
    }
}
