package dev.keypool.redis;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.events.Event;
import dev.keypool.events.EventLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The events of every instance in each one's {@link EventLog} (design §9, §11): this instance's own are published on
 * the {@code events} topic as they happen, and the others' are added to its log as they arrive, each with the id of
 * its instance. Events hold what the log lines hold: channel and tenant names, fingerprints, never a secret. An
 * instance hears the others' events from its connection on; those published while Redis was away are lost.
 */
public final class ClusterEvents {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterEvents.class);
    private static final String TOPIC = "cluster-events";

    private final ObjectMapper mapper = new ObjectMapper();
    private final RedisLink redis;
    private final EventLog log;

    private ClusterEvents(RedisLink redis, EventLog log) {
        this.redis = redis;
        this.log = log;
    }

    /** Shares {@code log}'s own events with the other instances and adds theirs to it. */
    public static void share(RedisLink redis, EventLog log) {
        ClusterEvents events = new ClusterEvents(redis, log);
        log.shareWith(event -> redis.publish(TOPIC, events.json(event)));
        redis.subscribe(TOPIC, events::heard);
    }

    private void heard(String json) {
        try {
            JsonNode node = mapper.readTree(json);
            Map<String, String> details = new LinkedHashMap<>();
            node.path("details").fields().forEachRemaining(e -> details.put(e.getKey(), e.getValue().asText()));
            log.heard(new Event(node.get("instance").asText(), Instant.parse(node.get("at").asText()),
                    text(node, "channel"), details, text(node, "from"), text(node, "to"), text(node, "message")));
        } catch (Exception unreadable) {
            LOG.warn("Event of another instance not understood: {}", unreadable.toString());
        }
    }

    private String json(Event event) {
        ObjectNode node = mapper.createObjectNode().put("instance", event.instance()).put("at", event.at().toString())
                .put("channel", event.channel());
        ObjectNode details = node.putObject("details");
        event.details().forEach(details::put);
        return node.put("from", event.from()).put("to", event.to()).put("message", event.message()).toString();
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }
}
