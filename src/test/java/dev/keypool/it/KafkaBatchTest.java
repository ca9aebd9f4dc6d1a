package dev.keypool.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Kafka queue consumer against a real broker: Apache Kafka in KRaft mode (Kafka's own KafkaClusterTestKit, one
 * combined controller and broker on free ports, no ZooKeeper, no Docker), started here. Records of batch lines go
 * in, one result record per custom_id comes out.
 */
@Tag("slow")
class KafkaBatchTest extends GatewayTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static KafkaClusterTestKit kafka;

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String requests = "keypool.requests." + suffix;
    private final String results = "keypool.results." + suffix;
    private final String deadLetters = "keypool.requests.dlq." + suffix;
    private KafkaConsumer<String, String> resultConsumer;
    private KafkaConsumer<String, String> deadLetterConsumer;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: primary
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    maxRetries: 0
                    fallback: [backup]
                    keys:
                      - key: sk-primary
                  - name: backup
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-backup
                  - name: scarce
                    baseUrl: UPSTREAM
                    models: [gpt-scarce]
                    keys:
                      # 95 % of it for batch lines: one a day
                      - key: sk-scarce
                        rpd: 2
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        p.put("batch.kafka.bootstrapServers", broker());
        p.put("batch.kafka.requestsTopic", requests);
        p.put("batch.kafka.resultsTopic", results);
        p.put("batch.kafka.groupId", group());
        p.put("batch.kafka.deadLetterTopic", deadLetters);
        // the records of a poll give their partition back after 1 s of waiting for capacity, well within the 5 s
        // Kafka gives a consumer between two polls before it takes its partitions away
        p.put("batch.kafka.maxHold", "1s");
        p.put("camel.component.kafka.maxPollIntervalMs", "5000");
        // a consumer that does not leave the group cleanly holds its partition until its session ends: 6 s (the
        // broker's least) rather than Kafka's 45 s, three quarters of the restart test's minute
        p.put("camel.component.kafka.sessionTimeoutMs", "6000");
        p.put("camel.component.kafka.heartbeatIntervalMs", "1000");
        return p;
    }

    private String group() {
        return "keypool-" + suffix;
    }

    private static synchronized String broker() {
        if (kafka == null) {
            try {
                // the broker and its clients say a lot at INFO
                Configurator.setLevel("org.apache.kafka", Level.WARN);
                Configurator.setLevel("kafka", Level.WARN);
                kafka = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder().setCombined(true)
                        .setNumBrokerNodes(1).setNumControllerNodes(1).build())
                        // one broker: internal topics with one replica
                        .setConfigProp("offsets.topic.replication.factor", "1")
                        .setConfigProp("offsets.topic.num.partitions", "1")
                        .setConfigProp("transaction.state.log.replication.factor", "1")
                        .setConfigProp("transaction.state.log.min.isr", "1")
                        .setConfigProp("group.initial.rebalance.delay.ms", "0")
                        .build();
                kafka.format();
                kafka.startup();
                kafka.waitForReadyBrokers();
            } catch (Exception e) {
                throw new IllegalStateException("Kafka test broker did not start", e);
            }
        }
        return kafka.bootstrapServers();
    }

    @AfterAll
    static void stopKafka() throws Exception {
        if (kafka != null) {
            kafka.close();
            kafka = null;
        }
    }

    @AfterEach
    void closeConsumer() {
        if (resultConsumer != null) {
            resultConsumer.close();
        }
        if (deadLetterConsumer != null) {
            deadLetterConsumer.close();
        }
    }

    private void produce(List<String> customIds) throws Exception {
        try (var admin = kafka.admin()) {
            admin.createTopics(List.of(new NewTopic(requests, 1, (short) 1), new NewTopic(results, 1, (short) 1))).all().get();
        } catch (Exception alreadyThere) {
            // created by the consumer's first poll
        }
        try (KafkaProducer<String, String> producer = producer()) {
            List<Future<RecordMetadata>> sent = customIds.stream()
                    .map(id -> producer.send(new ProducerRecord<>(requests, id, BatchApiSdkTest.chatLine(id)))).toList();
            for (Future<RecordMetadata> record : sent) {
                record.get(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * The producer of request records: not idempotent, one request in flight. The topic was created a moment ago, and
     * its broker may refuse the first batch (NOT_LEADER_OR_FOLLOWER) and take the next ones; an idempotent producer's
     * retry of that first batch was then refused as OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout, 2 min
     * with a part of the records never sent (seen in CI, and here in 2 of some 15 runs).
     */
    private KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
                ProducerConfig.ACKS_CONFIG, "all"));
    }

    /** Every result record so far, by custom_id: how many, and the last. */
    private final Map<String, Integer> counts = new HashMap<>();
    private final Map<String, JsonNode> latest = new HashMap<>();

    private static KafkaConsumer<String, String> reader(String topic, String group) {
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker(),
                ConsumerConfig.GROUP_ID_CONFIG, group, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class));
        consumer.subscribe(List.of(topic));
        return consumer;
    }

    /** The dead-letter records so far. */
    private final List<ConsumerRecord<String, String>> deadLettered = new ArrayList<>();

    private int readDeadLetters() {
        if (deadLetterConsumer == null) {
            deadLetterConsumer = reader(deadLetters, "test-dlq-" + suffix);
        }
        deadLetterConsumer.poll(Duration.ofMillis(200)).forEach(deadLettered::add);
        return deadLettered.size();
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private int readResults() throws Exception {
        if (resultConsumer == null) {
            resultConsumer = reader(results, "test-" + suffix);
        }
        for (ConsumerRecord<String, String> record : resultConsumer.poll(Duration.ofMillis(200))) {
            JsonNode line = JSON.readTree(record.value());
            assertThat(line.get("custom_id").asText()).isEqualTo(record.key());
            counts.merge(record.key(), 1, Integer::sum);
            latest.put(record.key(), line);
        }
        return counts.size();
    }

    /** Waits until {@code n} custom_ids have a result; if they do not, says how many did and where the group stands. */
    private void awaitResults(int n, Duration within) {
        try {
            await().atMost(within).pollInterval(Duration.ofMillis(10)).until(() -> readResults() >= n);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(counts.size() + " of " + n + " results within " + within + "; " + groupState(), e);
        }
    }

    private String groupState() {
        try (var admin = kafka.admin()) {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(group())).all().get().get(group());
            var committed = admin.listConsumerGroupOffsets(group()).partitionsToOffsetAndMetadata().get();
            return "group " + group.groupState() + " with " + group.members().size() + " member(s), committed "
                    + committed.values().stream().map(o -> o == null ? "none" : String.valueOf(o.offset())).toList()
                    + ", route batch-kafka " + context.getRouteController().getRouteStatus("batch-kafka");
        } catch (Exception e) {
            return "group state unknown: " + e;
        }
    }

    @Test
    void should_answer_500_records_with_one_result_each_while_a_channel_fails() throws Exception {
        upstream.answer("sk-primary", 500);
        List<String> ids = IntStream.range(0, 500).mapToObj(i -> "k-" + i).toList();
        produce(ids);

        awaitResults(500, Duration.ofSeconds(60));
        assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(counts.values()).containsOnly(1);
        assertThat(latest.values()).allMatch(line -> line.at("/response/status_code").asInt() == 200);
        assertThat(upstream.hits("sk-backup")).isEqualTo(500);
    }

    @Test
    void should_lose_no_record_when_the_consumer_restarts_mid_stream() throws Exception {
        upstream.delayAll(5);
        List<String> ids = IntStream.range(0, 200).mapToObj(i -> "r-" + i).toList();
        produce(ids);
        awaitResults(50, Duration.ofSeconds(60));

        context.getRouteController().stopRoute("batch-kafka");
        int before = readResults();
        assertThat(before).isLessThan(200);
        context.getRouteController().startRoute("batch-kafka");

        awaitResults(200, Duration.ofSeconds(60));
        assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        // at-least-once: a record is answered again only if its offset was not committed when the consumer stopped
        assertThat(counts.values().stream().filter(n -> n > 1).count()).isLessThanOrEqualTo(1);
    }

    @Test
    void should_send_records_that_cannot_run_to_the_dead_letter_topic_and_go_on() throws Exception {
        String noCustomId = "{\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{}}";
        try (KafkaProducer<String, String> producer = producer()) {
            producer.send(new ProducerRecord<>(requests, null, BatchApiSdkTest.chatLine("keyless"))).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>(requests, "broken", "{not json")).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>(requests, "no-id", noCustomId)).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>(requests, "fine", BatchApiSdkTest.chatLine("fine"))).get(30, TimeUnit.SECONDS);
        }

        // the records behind them run
        awaitResults(1, Duration.ofSeconds(30));
        assertThat(latest.get("fine").at("/response/status_code").asInt()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> readDeadLetters() >= 3);
        assertThat(deadLettered).hasSize(3);
        assertThat(deadLettered).extracting(ConsumerRecord::key).containsExactly(null, "broken", "no-id");
        // as they came, with why in headers
        assertThat(deadLettered).extracting(ConsumerRecord::value)
                .containsExactly(BatchApiSdkTest.chatLine("keyless"), "{not json", noCustomId);
        assertThat(deadLettered).extracting(r -> header(r, "keypool-error"))
                .containsExactly("missing_key", "invalid_json", "invalid_line");
        assertThat(header(deadLettered.get(1), "keypool-error-message")).startsWith("Line 1 is not valid JSON");
        assertThat(header(deadLettered.get(2), "keypool-error-message")).contains("'custom_id' is required");
        assertThat(deadLettered).extracting(r -> header(r, "keypool-source-topic")).containsOnly(requests);
        assertThat(deadLettered).extracting(r -> header(r, "keypool-source-offset")).containsExactly("0", "1", "2");
        assertThat(counts).containsOnlyKeys("fine");
        assertThat(upstream.totalHits()).isEqualTo(1);
    }

    @Test
    void should_keep_its_partition_while_a_record_waits_for_capacity() throws Exception {
        try (KafkaProducer<String, String> producer = producer()) {
            for (String id : List.of("s-1", "s-2")) {
                producer.send(new ProducerRecord<>(requests, id, BatchApiSdkTest.chatLine(id).replace("gpt-test", "gpt-scarce")))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        // the key's one batch line of the day; the other record waits for the next day, and is handed back (written
        // again at the end of the topic) again and again
        awaitResults(1, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> endOffset(requests) > 3);

        // longer than Kafka's 5 s between two polls: the consumer polls on, and stays in the group
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(500))
                .until(() -> members() == 1 && readResults() == 1);

        clock.advance(Duration.ofHours(25));
        awaitResults(2, Duration.ofSeconds(30));
        assertThat(counts).containsOnlyKeys("s-1", "s-2").allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
        assertThat(latest.values()).allMatch(line -> line.at("/response/status_code").asInt() == 200);
        assertThat(upstream.hits("sk-scarce")).isEqualTo(2);
    }

    private static long endOffset(String topic) throws Exception {
        TopicPartition partition = new TopicPartition(topic, 0);
        try (var admin = kafka.admin()) {
            return admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition).get().offset();
        }
    }

    /** How many consumers the gateway's group has. */
    private int members() throws Exception {
        try (var admin = kafka.admin()) {
            return admin.describeConsumerGroups(List.of(group())).all().get().get(group()).members().size();
        }
    }
}
