package dev.keypool.camel.batch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.auth.Sha256;
import dev.keypool.batch.Batch;
import dev.keypool.batch.BatchLine;
import dev.keypool.batch.BatchResult;
import dev.keypool.batch.BatchStatus;
import dev.keypool.batch.BatchStore;
import dev.keypool.batch.Claimant;
import dev.keypool.batch.FileStore;
import dev.keypool.batch.Ids;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.config.Api;
import org.apache.camel.AggregationStrategy;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs batches (routes/batch.camel.yaml, routes batch-jobs and batch-run): claims the next batch no instance works,
 * validates its lines, hands the ones without a result to the splitter, prepares each for the gateway core as its
 * owner's low-priority request, checkpoints each answer in the batch store (as the splitter's aggregation strategy),
 * and writes the output and error files at the end. A batch's lines run only while this instance holds its lease
 * (renewed by {@link #renew}, the heartbeat): an instance that lost it (cut off longer than the lease) stops handing
 * out its lines and leaves it to the one that claimed it; a stopping one hands out no more lines either, and
 * {@link BatchBeans} gives up its leases, so that another instance takes the batch up at once.
 * A line the gateway held back for capacity (its own 429 or 503) gets no result, and its batch hands out no line until
 * the soonest room or the answer's Retry-After: waiting there rather than on a batch thread, a batch whose channel
 * or tenant is at its limits leaves the threads to the other batches.
 */
public final class BatchLines implements AggregationStrategy {

    private static final Logger LOG = LoggerFactory.getLogger(BatchLines.class);

    /** The gateway's own answers that mean "not now" rather than "not this line": the line waits for another round. */
    private static final Set<String> NOT_NOW = Set.of("quota_exhausted", "tenant_rate_limited", "budget_exceeded",
            "no_channel_available", "overloaded");

    /** The longest a batch rests after a line held back, whatever the Retry-After. */
    static final Duration LONGEST_REST = Duration.ofMinutes(1);

    /** The tenant a batch line runs for (its batch's owner, or the Kafka consumer's tenant); absent for none. */
    static final String BATCH_OWNER = "kpBatchOwner";
    /** The inbox file's name without .jsonl, for its outbox file's name. */
    static final String INBOX_NAME = "kpInboxName";

    private final BatchStore batches;
    private final FileStore files;
    private final ObjectMapper mapper;
    private final Clock clock;
    /** The tenant of the inbox's batches (batch.inbox-tenant), null for none. */
    private final String inboxOwner;
    /** The lines of the batches being run, parsed once per run. */
    private final Map<String, List<BatchLine>> lines = new ConcurrentHashMap<>();
    /**
     * Batches whose last line the gateway held back ("not now", with its Retry-After), by id: until then their rounds
     * hand out no line, so that a batch whose tenant is at its limits sends no request each second for hours, taking
     * line threads and CPU from the other batches.
     */
    private final Map<String, Instant> resting = new ConcurrentHashMap<>();
    /** This instance, in the leases of the batches it works. */
    private final Claimant claimant;
    /** The batches this instance claimed and has not finished (not the inbox's, which are never claimed). */
    private final Set<String> working = ConcurrentHashMap.newKeySet();

    public BatchLines(BatchStore batches, FileStore files, ObjectMapper mapper, Clock clock, String inboxOwner,
                      Claimant claimant) {
        this.inboxOwner = inboxOwner;
        this.claimant = claimant;
        this.batches = batches;
        this.files = files;
        this.mapper = mapper;
        this.clock = clock;
    }

    /**
     * Claims the oldest batch that no instance works (new, or left by an instance whose lease ran out: killed, or
     * stopped before it was done) and names it by kpBatchId; false when there is none, or when a batch this instance
     * works is running. Only while every batch it works rests (its lines wait for capacity) does it take another, so
     * that one tenant's batch at its limits holds up no other tenant's, and an instance never hoards the batches that
     * other instances could run.
     */
    public synchronized boolean claimNext(Exchange exchange) {
        if (exchange.getContext().isStopping() || !working.stream().allMatch(this::resting)) {
            return false;
        }
        Instant now = clock.instant();
        for (String id : batches.claimable(claimant, now)) {
            if (batches.claim(id, claimant, now)) {
                working.add(id);
                exchange.setProperty(Exchanges.BATCH_ID, id);
                return true;
            }
        }
        return false;
    }

    /** The heartbeat: extends the leases of the batches this instance works. */
    public void renew() {
        batches.renew(claimant, clock.instant());
    }

    /**
     * Takes up the batch named by kpBatchId: a new one is validated (its malformed lines get their error results at
     * once) and moves to in_progress; one taken up again (after a restart, or from another instance) keeps the
     * results it has.
     */
    public void start(Exchange exchange) {
        String id = exchange.getProperty(Exchanges.BATCH_ID, String.class);
        // however its run ends (a batch whose input file is gone fails), this instance may then claim the next one
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                working.remove(id);
            }
        });
        Batch batch = batch(id);
        exchange.setProperty(BATCH_OWNER, batch.owner());
        List<BatchLine> parsed = BatchLine.parse(files.content(batch.inputFileId()), batch.endpoint(), mapper);
        lines.put(batch.id(), parsed);
        if (batch.status() == BatchStatus.VALIDATING) {
            batch.lines(parsed.size());
            if (parsed.isEmpty()) {
                batch.error("The input file has no lines");
                batch.moveTo(BatchStatus.FAILED, clock.instant());
            } else {
                batch.moveTo(BatchStatus.IN_PROGRESS, clock.instant());
            }
            // not stored when cancelled meanwhile: finish ends it as cancelled
            batches.update(batch, BatchStatus.VALIDATING);
        }
        for (BatchLine line : parsed) {
            if (line.malformed()) {
                batches.record(batch.id(), BatchResult.failed(line, "invalid_request", line.problem(), mapper));
            }
        }
        batch = batch(exchange);
        LOG.info("Batch {} ({}) on {}: {} lines, {} with a result already", batch.id(), batch.status().apiName(),
                claimant.id(), parsed.size(), batch.done());
    }

    /** The splitter's input: the lines without a result, while the batch runs (none once it is cancelling or over). */
    public Iterator<BatchLine> pending(Exchange exchange) {
        String id = exchange.getProperty(Exchanges.BATCH_ID, String.class);
        Set<Integer> done = batches.done(id);
        Iterator<BatchLine> all = lines.getOrDefault(id, List.of()).iterator();
        return new Iterator<>() {
            private BatchLine next;
            private boolean stopped;

            @Override
            public boolean hasNext() {
                // a line once promised is handed out (mayRun stops it if the batch was cancelled meanwhile)
                if (next == null && !stopped) {
                    while (next == null && all.hasNext() && !resting(id)) {
                        BatchLine candidate = all.next();
                        if (!done.contains(candidate.index())) {
                            next = candidate;
                        }
                    }
                    // cancelled, past its window, claimed by another instance, or handed over at a stop: the round ends
                    if (next != null && !runsHere(exchange, batch(id))) {
                        next = null;
                        stopped = true;
                    }
                }
                return next != null;
            }

            @Override
            public BatchLine next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                BatchLine line = next;
                next = null;
                return line;
            }
        };
    }

    /**
     * Whether a line handed to the splitter still runs: not once its batch is cancelling or past its window, or the
     * gateway stops, nor while it rests (it runs in a later round).
     */
    public boolean mayRun(Exchange exchange) {
        Batch batch = batch(exchange);
        return runsHere(exchange, batch) && !resting(batch.id());
    }

    /**
     * Makes the exchange what an entry route makes of a client request: the line's body, its endpoint and API, and
     * the tenant it runs for by name (authenticate takes it, as a host application's through the keypool component);
     * kpBatchLine marks it low priority.
     */
    public void prepare(Exchange exchange) {
        BatchLine line = exchange.getMessage().getBody(BatchLine.class);
        String owner = exchange.getProperty(BATCH_OWNER, String.class);
        exchange.setProperty(Exchanges.BATCH_LINE, line);
        exchange.setProperty(Exchanges.ENDPOINT, line.endpointPath());
        exchange.setProperty(Exchanges.API, line.endpointPath().equals("embeddings") ? Api.EMBEDDINGS.configName()
                : Api.CHAT.configName());
        if (owner != null) {
            exchange.setProperty(Exchanges.NAMED_TENANT, owner);
        }
        exchange.getMessage().removeHeaders("*");
        exchange.getMessage().setBody(line.body());
    }

    /**
     * The splitter's aggregation: the answer a line got is checkpointed in the batch store, unless it was the
     * gateway's "not now" (capacity), which leaves the line to the next round.
     */
    @Override
    public Exchange aggregate(Exchange previous, Exchange answered) {
        BatchLine line = answered.getProperty(Exchanges.BATCH_LINE, BatchLine.class);
        if (line != null) {   // else it did not run: its batch was cancelled or expired
            String id = answered.getProperty(Exchanges.BATCH_ID, String.class);
            BatchResult result = result(line, answered);
            if (result != null) {
                // false for a line that had its result already: recorded once, however often it was sent
                batches.record(id, result);
            } else {
                restAfter(id, answered);
            }
        }
        // never a line's exchange: one the gateway core answered with an error is marked handled, which would end
        // the batch-run route after the splitter
        return previous != null ? previous : new DefaultExchange(answered.getContext());
    }

    /**
     * The result of a line the gateway core answered; null for its "not now" (capacity) and for a line the gateway's
     * stop cut off, to run it again later.
     */
    BatchResult result(BatchLine line, Exchange answered) {
        Throwable failure = answered.getException();
        if (failure != null && answered.getContext().isStopping()) {
            // cut off by the stop (a wait for room or a call interrupted, a step refused): the line runs again where
            // its batch is taken up (another instance, or this one at its next start), rather than failing
            LOG.info("Batch line {} stopped with the gateway, to run again where its batch is taken up: {}",
                    line.customId(), failure.toString());
            return null;
        }
        if (failure != null) {
            LOG.warn("Batch line {} failed in the gateway: {}", line.customId(), failure.toString());
            return BatchResult.failed(line, "internal_error", "The gateway failed this line: " + failure.getClass().getSimpleName(), mapper);
        }
        Integer status = answered.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        byte[] bytes = answered.getMessage().getBody(byte[].class);
        JsonNode body = BatchJson.body(mapper, bytes);
        int code = status == null ? 200 : status;
        if ((code == 429 || code == 503) && NOT_NOW.contains(body.path("error").path("code").asText())) {
            return null;
        }
        return BatchResult.answered(line, code, Ids.next("req_"), body, mapper);
    }

    /** Whether another round is due: the batch still runs here and some line has no result yet. */
    public boolean moreToRun(Exchange exchange) {
        Batch batch = batch(exchange);
        return runsHere(exchange, batch) && batch.done() < batch.total();
    }

    /**
     * The batch's end: the output file (2xx answers) and the error file (the rest), each only when it has a line, and
     * the last status — completed, or cancelled / expired with the results it had by then — named with them in one
     * stored step: a batch seen over has its files. Nothing when another instance works the batch now, nor when the
     * gateway stops before its lines are done (another instance claims it once the lease is given up).
     */
    public void finish(Exchange exchange) {
        String id = exchange.getProperty(Exchanges.BATCH_ID, String.class);
        try {
            Batch batch = batch(id);
            if (handedOver(exchange, batch) && batch.status() == BatchStatus.IN_PROGRESS && withinWindow(batch)
                    && batch.done() < batch.total()) {
                LOG.info("Batch {} left at the stop with {} of {} lines done: another instance takes it up", id,
                        batch.done(), batch.total());
                return;
            }
            // each round ends unless another instance moved the batch first (a cancel): then it is read again
            while (!end(batch(id))) {
                LOG.debug("Batch {} changed while it was ending: read again", id);
            }
        } finally {
            lines.remove(id);
            resting.remove(id);
        }
    }

    /** One try at the end of {@code batch}; false when its status changed in the store meanwhile. */
    private boolean end(Batch batch) {
        if (batch.status().terminal()) {
            // failed validation, or over before a restart (an inbox file whose move the stop interrupted)
            return true;
        }
        if (!ours(batch)) {
            LOG.info("Batch {} is worked by {} now: left to it", batch.id(), batch.claimedBy());
            return true;
        }
        BatchStatus from = batch.status();
        if (from == BatchStatus.IN_PROGRESS && withinWindow(batch)) {
            batch.moveTo(BatchStatus.FINALIZING, clock.instant());
            if (!batches.update(batch, BatchStatus.IN_PROGRESS)) {
                return false;
            }
            from = BatchStatus.FINALIZING;
        }
        if (from == BatchStatus.IN_PROGRESS) {
            // past its window, as OpenAI does: each line that did not run gets an error line
            Set<Integer> done = batches.done(batch.id());
            for (BatchLine line : lines.getOrDefault(batch.id(), List.of())) {
                if (!done.contains(line.index())) {
                    batches.record(batch.id(), BatchResult.failed(line, "batch_expired",
                            "This request could not be executed before the completion window expired.", mapper));
                }
            }
        }
        List<BatchResult> results = batches.results(batch.id());
        String output = file(batch, results.stream().filter(BatchResult::ok).toList(), "output");
        String errors = file(batch, results.stream().filter(r -> !r.ok()).toList(), "error");
        batch.end(clock.instant(), output, errors);
        if (!batches.update(batch, from)) {
            // its files are left to expire with the retention
            return false;
        }
        LOG.info("Batch {} {}: {} of {} lines answered 2xx", batch.id(), batch.status().apiName(),
                results.stream().filter(BatchResult::ok).count(), batch.total());
        return true;
    }

    /**
     * A batch from a file of the inbox (batch.inbox): the same batch again when the same file (name and content)
     * comes back after a restart, so that its results are kept; owned by batch.inbox-tenant.
     */
    public void fromInbox(Exchange exchange) {
        String name = exchange.getMessage().getHeader(Exchange.FILE_NAME, String.class);
        byte[] content = exchange.getMessage().getBody(byte[].class);
        // the file's name and content say which batch it is: the same one again after a restart
        String id = "batch_" + HexFormat.of().formatHex(Sha256.of(name + "\n" + new String(content, StandardCharsets.UTF_8)), 0, 12);
        if (batches.get(id).isEmpty()) {
            FileStore.StoredFile input = files.create(name, "batch", inboxOwner, content);
            // under no lease: the instance whose inbox has the file runs it, and no other can read the file
            batches.create(new Batch(id, inboxEndpoint(content), input.id(), inboxOwner, clock.instant(),
                    Map.of(Batch.SOURCE, Batch.INBOX)), null, clock.instant());
        }
        exchange.setProperty(Exchanges.BATCH_ID, id);
        exchange.setProperty(INBOX_NAME, name.endsWith(".jsonl") ? name.substring(0, name.length() - ".jsonl".length()) : name);
    }

    /** The endpoint of an inbox file's lines: the url of its first line that has one. */
    private String inboxEndpoint(byte[] content) {
        for (String text : new String(content, StandardCharsets.UTF_8).split("\n")) {
            try {
                String url = mapper.readTree(text).path("url").asText();
                if (BatchLine.ENDPOINTS.contains(url)) {
                    return url;
                }
            } catch (IOException | RuntimeException e) {
                // a malformed line: its error is written when the batch runs
            }
        }
        return BatchLine.ENDPOINTS.get(0);
    }

    /** Every line's result, in input order, as the outbox file (batch.outbox): output and error lines together. */
    public byte[] outbox(Exchange exchange) {
        return lines(batches.results(exchange.getProperty(Exchanges.BATCH_ID, String.class)));
    }

    private String file(Batch batch, List<BatchResult> results, String kind) {
        if (results.isEmpty()) {
            return null;
        }
        return files.create(batch.id() + "_" + kind + ".jsonl", "batch_output", batch.owner(), lines(results)).id();
    }

    private byte[] lines(List<BatchResult> results) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            for (BatchResult r : results) {
                out.write(mapper.writeValueAsBytes(r.record()));
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * A line held back: its batch rests until the soonest room for it (its keys' capacity, {@link Exchanges#NOT_BEFORE})
     * or else the gateway's Retry-After (its tenant's limits), at most {@link #LONGEST_REST} (limits raised or keys
     * added meanwhile are seen within it).
     */
    private void restAfter(String batchId, Exchange answered) {
        Instant now = clock.instant();
        Instant until = answered.getProperty(Exchanges.NOT_BEFORE, Instant.class);
        if (until == null) {
            Long seconds = answered.getMessage().getHeader("Retry-After", Long.class);
            if (seconds == null || seconds <= 0) {
                return;
            }
            until = now.plusSeconds(seconds);
        }
        Instant longest = now.plus(LONGEST_REST);
        resting.merge(batchId, until.isAfter(longest) ? longest : until, (a, b) -> a.isAfter(b) ? a : b);
    }

    private boolean resting(String batchId) {
        Instant until = resting.get(batchId);
        if (until == null) {
            return false;
        }
        if (clock.instant().isBefore(until)) {
            return true;
        }
        resting.remove(batchId, until);
        return false;
    }

    /**
     * Whether its lines still run here: in progress, within its 24 h window (past it, {@link #finish} expires it, its
     * lines without a result get error lines), and this instance's to work.
     */
    private boolean running(Batch batch) {
        return batch.status() == BatchStatus.IN_PROGRESS && withinWindow(batch) && ours(batch);
    }

    /** {@link #running}, and not handed over: the gateway is not stopping. */
    private boolean runsHere(Exchange exchange, Batch batch) {
        return running(batch) && !handedOver(exchange, batch);
    }

    /**
     * Whether the gateway stops, so that a batch under a lease hands out no more lines: the stop need not wait for it,
     * and any other instance claims it at once. A batch of the inbox runs on: no other instance can read its file.
     */
    private static boolean handedOver(Exchange exchange, Batch batch) {
        return exchange.getContext().isStopping() && !batch.fromInbox();
    }

    private boolean withinWindow(Batch batch) {
        return clock.instant().isBefore(batch.expiresAt());
    }

    /**
     * Whether this instance works the batch: it holds its lease, or the batch is one of its inbox's (whose file no
     * other instance can read, so under no lease).
     */
    private boolean ours(Batch batch) {
        return batch.fromInbox() || claimant.id().equals(batch.claimedBy());
    }

    private Batch batch(Exchange exchange) {
        return batch(exchange.getProperty(Exchanges.BATCH_ID, String.class));
    }

    private Batch batch(String id) {
        return batches.get(id).orElseThrow(() -> new IllegalStateException("no batch " + id));
    }
}
