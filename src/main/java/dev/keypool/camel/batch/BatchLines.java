package dev.keypool.camel.batch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
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
import dev.keypool.batch.BatchJournal;
import dev.keypool.batch.BatchLine;
import dev.keypool.batch.BatchResult;
import dev.keypool.batch.BatchStatus;
import dev.keypool.batch.BatchStore;
import dev.keypool.batch.FileStore;
import dev.keypool.batch.Ids;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.config.Api;
import org.apache.camel.AggregationStrategy;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs batches (routes/batch.camel.yaml, route batch-run): validates a batch's lines, hands the ones without a result
 * to the splitter, prepares each for the gateway core as its owner's low-priority request, checkpoints each answer
 * in the batch's journal (as the splitter's aggregation strategy), and writes the output and error files at the end.
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

    public BatchLines(BatchStore batches, FileStore files, ObjectMapper mapper, Clock clock, String inboxOwner) {
        this.inboxOwner = inboxOwner;
        this.batches = batches;
        this.files = files;
        this.mapper = mapper;
        this.clock = clock;
    }

    /**
     * Takes up the batch named by kpBatchId: a new one is validated (its malformed lines get their error results at
     * once) and moves to in_progress; one taken up after a restart keeps the results its journal has.
     */
    public void start(Exchange exchange) {
        Batch batch = batch(exchange);
        exchange.setProperty(BATCH_OWNER, batch.owner());
        BatchJournal journal = batches.journal(batch);
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
            batches.save(batch);
        }
        for (BatchLine line : parsed) {
            if (line.malformed() && journal.record(BatchResult.failed(line, "invalid_request", line.problem(), mapper))) {
                batch.counted(false);
            }
        }
        LOG.info("Batch {} ({}): {} lines, {} with a result already", batch.id(), batch.status().apiName(),
                parsed.size(), journal.results().size());
    }

    /** The splitter's input: the lines without a result, while the batch runs (none once it is cancelling or over). */
    public Iterator<BatchLine> pending(Exchange exchange) {
        Batch batch = batch(exchange);
        BatchJournal journal = batches.journal(batch);
        Iterator<BatchLine> all = lines.getOrDefault(batch.id(), List.of()).iterator();
        return new Iterator<>() {
            private BatchLine next;

            @Override
            public boolean hasNext() {
                // a line once promised is handed out (mayRun stops it if the batch was cancelled meanwhile)
                while (next == null && all.hasNext() && running(batch) && !resting(batch)) {
                    BatchLine candidate = all.next();
                    if (!journal.done(candidate.index())) {
                        next = candidate;
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
     * Whether a line handed to the splitter still runs: not once its batch is cancelling or past its window, nor while
     * it rests (it runs in a later round).
     */
    public boolean mayRun(Exchange exchange) {
        Batch batch = batch(exchange);
        return running(batch) && !resting(batch);
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
     * The splitter's aggregation: the answer a line got is checkpointed in the batch's journal, unless it was the
     * gateway's "not now" (capacity), which leaves the line to the next round.
     */
    @Override
    public Exchange aggregate(Exchange previous, Exchange answered) {
        BatchLine line = answered.getProperty(Exchanges.BATCH_LINE, BatchLine.class);
        if (line != null) {   // else it did not run: its batch was cancelled or expired
            Batch batch = batch(answered);
            BatchResult result = result(line, answered);
            if (result != null && batches.journal(batch).record(result)) {
                batch.counted(result.ok());
            } else if (result == null) {
                restAfter(batch, answered);
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
            // cut off by the stop (a wait for room or a call interrupted, a step refused): the line runs again when
            // the gateway starts, like the lines in flight at a kill, rather than failing
            LOG.info("Batch line {} stopped with the gateway, to run again at the next start: {}", line.customId(), failure.toString());
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

    /** Whether another round is due: the batch still runs and some line has no result yet. */
    public boolean moreToRun(Exchange exchange) {
        Batch batch = batch(exchange);
        return running(batch) && batches.journal(batch).results().size() < batch.total();
    }

    /**
     * The batch's end: the output file (2xx answers) and the error file (the rest), each only when it has a line, and
     * the last status — completed, or cancelled / expired with the results it had by then — named with them in one
     * saved step: a batch seen over has its files.
     */
    public void finish(Exchange exchange) {
        Batch batch = batch(exchange);
        if (batch.status().terminal()) {
            // failed validation, or over before a restart (an inbox file whose move the stop interrupted)
            batches.closeJournal(batch);
            return;
        }
        boolean late = batch.status() == BatchStatus.IN_PROGRESS && !running(batch);
        if (batch.status() == BatchStatus.IN_PROGRESS && !late) {
            batch.moveTo(BatchStatus.FINALIZING, clock.instant());
            batches.save(batch);
        }
        if (late) {
            // as OpenAI does: each line that did not run gets an error line
            BatchJournal journal = batches.journal(batch);
            for (BatchLine line : lines.getOrDefault(batch.id(), List.of())) {
                if (!journal.done(line.index()) && journal.record(BatchResult.failed(line, "batch_expired",
                        "This request could not be executed before the completion window expired.", mapper))) {
                    batch.counted(false);
                }
            }
        }
        List<BatchResult> results = results(batch);
        String output = file(batch, results.stream().filter(BatchResult::ok).toList(), "output");
        String errors = file(batch, results.stream().filter(r -> !r.ok()).toList(), "error");
        batch.end(clock.instant(), output, errors);
        batches.save(batch);
        batches.closeJournal(batch);
        lines.remove(batch.id());
        resting.remove(batch.id());
        LOG.info("Batch {} {}: {} of {} lines answered 2xx", batch.id(), batch.status().apiName(),
                results.stream().filter(BatchResult::ok).count(), batch.total());
    }

    /**
     * A batch from a file of the inbox (batch.inbox): the same batch again when the same file (name and content)
     * comes back after a restart, so that its journal is kept; owned by batch.inbox-tenant.
     */
    public void fromInbox(Exchange exchange) {
        String name = exchange.getMessage().getHeader(Exchange.FILE_NAME, String.class);
        byte[] content = exchange.getMessage().getBody(byte[].class);
        // the file's name and content say which batch it is: the same one again after a restart
        String id = "batch_" + HexFormat.of().formatHex(Sha256.of(name + "\n" + new String(content, StandardCharsets.UTF_8)), 0, 12);
        if (batches.get(id).isEmpty()) {
            FileStore.StoredFile input = files.create(name, "batch", inboxOwner, content);
            batches.save(new Batch(id, inboxEndpoint(content), input.id(), inboxOwner, clock.instant(), Map.of(Batch.SOURCE, Batch.INBOX)));
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
        Batch batch = batch(exchange);
        return lines(results(batch));
    }

    /** The batches the gateway left unfinished when it last stopped, by id, for the batch-resume route. */
    public List<String> leftOver() {
        return batches.leftOver().stream().map(Batch::id).toList();
    }

    private List<BatchResult> results(Batch batch) {
        return batches.journal(batch).results().values().stream().sorted(Comparator.comparingInt(BatchResult::line)).toList();
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
    private void restAfter(Batch batch, Exchange answered) {
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
        resting.merge(batch.id(), until.isAfter(longest) ? longest : until, (a, b) -> a.isAfter(b) ? a : b);
    }

    private boolean resting(Batch batch) {
        Instant until = resting.get(batch.id());
        if (until == null) {
            return false;
        }
        if (clock.instant().isBefore(until)) {
            return true;
        }
        resting.remove(batch.id(), until);
        return false;
    }

    /**
     * Whether its lines still run: in progress, and within its 24 h window (past it, {@link #finish} expires it, its
     * lines without a result get error lines).
     */
    private boolean running(Batch batch) {
        return batch.status() == BatchStatus.IN_PROGRESS && clock.instant().isBefore(batch.expiresAt());
    }

    private Batch batch(Exchange exchange) {
        String id = exchange.getProperty(Exchanges.BATCH_ID, String.class);
        return batches.get(id).orElseThrow(() -> new IllegalStateException("no batch " + id));
    }
}
