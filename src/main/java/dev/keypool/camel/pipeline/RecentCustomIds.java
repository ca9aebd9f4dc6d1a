package dev.keypool.camel.pipeline;

import java.util.Map;

import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.LRUCacheFactory;

/**
 * The custom_ids of the last records the Kafka route took (route batch-kafka, its idempotent consumer), least
 * recently used out first: a record redelivered after a rebalance is not run again. A redelivery is one of the
 * records after the partition's last commit, at most a poll's ({@code batch.kafka.maxPollRecords}), so a bounded set
 * is enough. Camel's Caffeine repository kept every custom_id of the run, a leak for a consumer that runs for weeks;
 * its memory repository forgets them all when the route stops, which is when redeliveries come.
 */
public final class RecentCustomIds implements IdempotentRepository {

    private final Map<String, Boolean> taken;

    /** @param size how many custom_ids are kept */
    public RecentCustomIds(int size) {
        taken = LRUCacheFactory.newLRUCache(size);
    }

    @Override
    public boolean add(String customId) {
        return taken.putIfAbsent(customId, Boolean.TRUE) == null;
    }

    @Override
    public boolean contains(String customId) {
        return taken.containsKey(customId);
    }

    @Override
    public boolean remove(String customId) {
        return taken.remove(customId) != null;
    }

    @Override
    public boolean confirm(String customId) {
        return taken.containsKey(customId);
    }

    @Override
    public void clear() {
        taken.clear();
    }

    @Override
    public void start() {
        // kept across the route's stops and starts
    }

    @Override
    public void stop() {
        // kept across the route's stops and starts
    }
}
