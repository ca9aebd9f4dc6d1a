package dev.keypool.camel;

import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.batch.BatchLine;
import dev.keypool.batch.BatchResult;
import org.apache.camel.AggregationStrategy;
import org.apache.camel.Exchange;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.component.kafka.consumer.KafkaManualCommit;
import org.apache.camel.support.DefaultExchange;

/**
 * The Kafka queue consumer's steps (route batch-kafka): a record of {@code keypool.requests} is one batch line (key =
 * custom_id), run through the same direct:batch-line as a batch's, for batch.kafka.tenant; its result, an output
 * line as in a batch's output file, goes to {@code keypool.results} with the custom_id as key; the record's offset is
 * committed only then (at-least-once).
 */
public final class KafkaLines implements AggregationStrategy {

    /** The line's {@link BatchResult}, once it has one. */
    static final String RESULT = "kpBatchResult";
    /** The record's {@link KafkaManualCommit}, kept aside from the message the steps rewrite. */
    static final String COMMIT = "kpKafkaCommit";

    private final BatchLines batchLines;
    private final ObjectMapper mapper;
    private final String owner;

    /** @param owner the tenant the records run for (batch.kafka.tenant), null for none */
    public KafkaLines(BatchLines batchLines, ObjectMapper mapper, String owner) {
        this.batchLines = batchLines;
        this.mapper = mapper;
        this.owner = owner;
    }

    /**
     * Reads the record as a batch line: the splitter's one element, or none when it is malformed (its result, an
     * error line, is known at once).
     */
    public List<BatchLine> line(Exchange exchange) {
        exchange.setProperty(COMMIT, exchange.getMessage().getHeader(KafkaConstants.MANUAL_COMMIT));
        exchange.setProperty(BatchLines.BATCH_OWNER, owner);
        String text = exchange.getMessage().getBody(String.class);
        BatchLine line = BatchLine.of(text == null ? "" : text, mapper);
        if (line.malformed()) {
            String key = exchange.getMessage().getHeader(KafkaConstants.KEY, String.class);
            BatchLine keyed = new BatchLine(0, line.customId() != null ? line.customId() : key, null, null, line.problem());
            exchange.setProperty(RESULT, BatchResult.failed(keyed, "invalid_request", line.problem(), mapper));
            return List.of();
        }
        exchange.removeProperty(RESULT);
        return List.of(line);
    }

    /** Whether the line still waits for its result: the gateway answered "not now" (capacity); it runs again. */
    public boolean waiting(Exchange exchange) {
        return exchange.getProperty(RESULT) == null;
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

    /** The result is written: the request record's offset may be committed. */
    public void commit(Exchange exchange) {
        KafkaManualCommit commit = exchange.getProperty(COMMIT, KafkaManualCommit.class);
        if (commit != null) {
            commit.commit();
        }
    }
}
