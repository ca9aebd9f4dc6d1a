package dev.keypool.camel.batch;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.batch.BatchLine;
import dev.keypool.batch.BatchResult;
import dev.keypool.camel.pipeline.Exchanges;
import org.apache.camel.AggregationStrategy;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.component.kafka.consumer.KafkaManualCommit;
import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka queue consumer's steps (route batch-kafka): a record of {@code keypool.requests} is one batch line (key =
 * custom_id), run through the same direct:batch-line as a batch's, for batch.kafka.tenant; its result, an output
 * line as in a batch's output file, goes to {@code keypool.results} with the custom_id as key; the record's offset is
 * committed only then (at-least-once).
 * <p>
 * A record that cannot run (no key, not JSON, not a valid line) goes to the dead-letter topic as it came, with why
 * in its headers, and the partition moves on. A record whose line the gateway holds back for capacity runs again
 * while the records of its poll have held their partition less than {@code batch.kafka.maxHold}; then it is handed
 * back, written again at the end of its topic, so that the consumer polls again within Kafka's
 * {@code max.poll.interval.ms} and keeps its partitions.
 */
public final class KafkaLines implements AggregationStrategy {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaLines.class);

    /** The line's {@link BatchResult}, once it has one. */
    static final String RESULT = "kpBatchResult";
    /** The record's {@link KafkaManualCommit}, kept aside from the message the steps rewrite. */
    static final String COMMIT = "kpKafkaCommit";
    /** The record as it came: key and value, for the dead-letter topic or to hand it back. */
    static final String RECORD = "kpKafkaRecord";
    /** The record's line, when it can run. */
    static final String LINE = "kpKafkaLine";
    /** Why the record cannot run ({@link Rejection}); absent when it can. */
    static final String REJECTED = "kpKafkaRejected";
    /** The {@link System#nanoTime()} by which the record leaves the consumer: its poll's start + maxHold. */
    static final String HOLD_UNTIL = "kpKafkaHoldUntil";

    /** Why a record cannot run, and where it was. */
    record Rejection(String code, String message, String topic, Object partition, Object offset) {

        /** The headers of its dead-letter record: why (a code, then a sentence) and where it came from. */
        Map<String, String> headers() {
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("keypool-error", code);
            headers.put("keypool-error-message", message);
            headers.put("keypool-source-topic", topic);
            headers.put("keypool-source-partition", String.valueOf(partition));
            headers.put("keypool-source-offset", String.valueOf(offset));
            return headers;
        }
    }

    /** A record as it came. */
    record Record(String key, String value) { }

    private final BatchLines batchLines;
    private final ObjectMapper mapper;
    private final String owner;
    private final IdempotentRepository taken;
    private final PollHolds holds;

    /**
     * @param owner   the tenant the records run for (batch.kafka.tenant), null for none
     * @param taken   the custom_ids of the records taken (the route's idempotent consumer): a record handed back leaves it
     * @param maxHold how long the records of one poll may hold their partition waiting for capacity (batch.kafka.maxHold)
     */
    public KafkaLines(BatchLines batchLines, ObjectMapper mapper, String owner, IdempotentRepository taken, Duration maxHold) {
        this.batchLines = batchLines;
        this.mapper = mapper;
        this.owner = owner;
        this.taken = taken;
        this.holds = new PollHolds(maxHold, System::nanoTime);
    }

    /**
     * Takes the record in: its commit and tenant aside, when it must leave the consumer, and its line, or why it
     * cannot run ({@link #REJECTED}).
     */
    public void take(Exchange exchange) {
        Message message = exchange.getMessage();
        exchange.setProperty(COMMIT, message.getHeader(KafkaConstants.MANUAL_COMMIT));
        exchange.setProperty(BatchLines.BATCH_OWNER, owner);
        exchange.setProperty(HOLD_UNTIL, holdUntil(exchange, Boolean.TRUE.equals(message.getHeader(KafkaConstants.LAST_POLL_RECORD, Boolean.class))));
        String key = message.getHeader(KafkaConstants.KEY, String.class);
        String value = message.getBody(String.class);
        exchange.setProperty(RECORD, new Record(key, value));
        if (key == null || key.isBlank()) {
            reject(exchange, "missing_key", "The record has no key: its key must be its line's custom_id");
            return;
        }
        BatchLine line = BatchLine.of(value == null ? "" : value, mapper);
        if (line.malformed()) {
            reject(exchange, json(value) ? "invalid_line" : "invalid_json", line.problem());
            return;
        }
        exchange.setProperty(LINE, line);
    }

    /** Whether the record cannot run: it goes to the dead-letter topic. */
    public boolean rejected(Exchange exchange) {
        return exchange.getProperty(REJECTED) != null;
    }

    /** The splitter's input: the record's line. */
    public List<BatchLine> line(Exchange exchange) {
        return List.of(exchange.getProperty(LINE, BatchLine.class));
    }

    /**
     * Whether the line runs (again): it has no result yet, and the records of this poll have held their partition
     * less than maxHold.
     */
    public boolean runAgain(Exchange exchange) {
        return exchange.getProperty(RESULT) == null && holds.holding(exchange.getProperty(HOLD_UNTIL, Long.class));
    }

    /** Whether the line has its result (or was held back for capacity past maxHold: it is handed back). */
    public boolean answered(Exchange exchange) {
        return exchange.getProperty(RESULT) != null;
    }

    /** The splitter's aggregation: the line's result, on an exchange of its own (a line's is marked handled). */
    @Override
    public Exchange aggregate(Exchange previous, Exchange answered) {
        Exchange result = new DefaultExchange(answered.getContext());
        BatchLine line = answered.getProperty(Exchanges.BATCH_LINE, BatchLine.class);
        BatchResult outcome = line == null ? null : batchLines.result(line, answered);
        if (outcome != null) {
            result.setProperty(RESULT, outcome);
        }
        return result;
    }

    /** The result record for keypool.results: the output line as JSON, keyed by custom_id. */
    public void output(Exchange exchange) throws JsonProcessingException {
        BatchResult result = exchange.getProperty(RESULT, BatchResult.class);
        exchange.getMessage().removeHeaders("*");
        exchange.getMessage().setHeader(KafkaConstants.KEY, result.customId());
        exchange.getMessage().setBody(mapper.writeValueAsString(result.record()));
    }

    /**
     * The record handed back, for its own topic: as it came, to run when the consumer comes to it again. Its
     * custom_id leaves the ones taken, or it would be taken for a redelivery then.
     */
    public void handBack(Exchange exchange) {
        Record record = exchange.getProperty(RECORD, Record.class);
        taken.remove(record.key());
        LOG.debug("Kafka record {} waited for capacity as long as its poll may hold the partition: written again at the end of its topic", record.key());
        exchange.getMessage().removeHeaders("*");
        exchange.getMessage().setHeader(KafkaConstants.KEY, record.key());
        exchange.getMessage().setBody(record.value());
    }

    /** The dead-letter record: the record as it came, why it cannot run and where it was in headers. */
    public void deadLetter(Exchange exchange) {
        Record record = exchange.getProperty(RECORD, Record.class);
        Rejection why = exchange.getProperty(REJECTED, Rejection.class);
        LOG.warn("Kafka record at {}-{} offset {} goes to the dead-letter topic: {}", why.topic(), why.partition(), why.offset(), why.message());
        Message message = exchange.getMessage();
        message.removeHeaders("*");
        if (record.key() != null) {
            message.setHeader(KafkaConstants.KEY, record.key());
        }
        why.headers().forEach(message::setHeader);
        message.setBody(record.value() == null ? "" : record.value());
    }

    /** The record is done with (result written, handed back or dead-lettered): its offset may be committed. */
    public void commit(Exchange exchange) {
        KafkaManualCommit commit = exchange.getProperty(COMMIT, KafkaManualCommit.class);
        if (commit != null) {
            commit.commit();
        }
    }

    /** When the record must leave the consumer: maxHold after the start of its poll ({@link PollHolds}). */
    private long holdUntil(Exchange exchange, boolean lastOfPoll) {
        Thread consumer = Thread.currentThread();
        long deadline = holds.deadline(consumer);
        if (lastOfPoll) {
            holds.ended(consumer);
        } else {
            // a record that fails ends its poll: the consumer polls again from it
            exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
                @Override
                public void onFailure(Exchange failed) {
                    holds.ended(consumer);
                }
            });
        }
        return deadline;
    }

    private void reject(Exchange exchange, String code, String message) {
        Message in = exchange.getMessage();
        exchange.setProperty(REJECTED, new Rejection(code, message, in.getHeader(KafkaConstants.TOPIC, String.class),
                in.getHeader(KafkaConstants.PARTITION), in.getHeader(KafkaConstants.OFFSET)));
    }

    private boolean json(String value) {
        try {
            return value != null && mapper.readTree(value) != null;
        } catch (JsonProcessingException e) {
            return false;
        }
    }
}
