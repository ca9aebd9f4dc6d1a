package dev.keypool.camel.admin;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.pool.ApiKey;
import dev.keypool.quota.KeyQuota;
import dev.keypool.quota.QuotaStateFile;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the keys' day and month quota counts across restarts (design §6): reads them back when it starts, writes
 * them when the {@code quota-state} timer route calls {@link #save()} and once more when the CamelContext stops
 * (a service of the context, stopped after its routes, so the last calls are counted).
 */
public final class QuotaStateKeeper extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(QuotaStateKeeper.class);

    private final Channels channels;
    private final QuotaStateFile file;
    /** Whether the last write failed, so that a broken disk is reported once, not every five seconds. */
    private boolean failing;

    public QuotaStateKeeper(Channels channels, QuotaStateFile file) {
        this.channels = channels;
        this.file = file;
    }

    @Override
    protected void doStart() {
        Map<String, Map<KeyQuota.Window, KeyQuota.PeriodCount>> saved = file.read();
        int restored = 0;
        for (Channel channel : channels.all()) {
            for (ApiKey key : channel.pool().keys()) {
                Map<KeyQuota.Window, KeyQuota.PeriodCount> counts = saved.get(QuotaStateFile.keyId(channel.name(), key.fingerprint()));
                if (counts != null) {
                    KeyQuota quota = channel.pool().quotaOf(key);
                    counts.forEach(quota::restore);
                    restored++;
                }
            }
        }
        if (restored > 0) {
            LOG.info("Quota state {}: day and month counts of {} keys restored", file.path(), restored);
        }
    }

    @Override
    protected void doStop() {
        save();
    }

    /** Writes every key's day and month counts; nothing when no key has a day or month limit. */
    public synchronized void save() {
        Map<String, Map<KeyQuota.Window, KeyQuota.PeriodCount>> counts = new LinkedHashMap<>();
        for (Channel channel : channels.all()) {
            for (ApiKey key : channel.pool().keys()) {
                Map<KeyQuota.Window, KeyQuota.PeriodCount> periods = channel.pool().quotaOf(key).periodCounts();
                if (!periods.isEmpty()) {
                    counts.put(QuotaStateFile.keyId(channel.name(), key.fingerprint()), periods);
                }
            }
        }
        if (counts.isEmpty()) {
            return;
        }
        try {
            file.write(counts);
            if (failing) {
                LOG.info("Quota state {} written again", file.path());
                failing = false;
            }
        } catch (IOException | RuntimeException e) {
            if (!failing) {
                LOG.warn("Quota state {} not written, day and month counts would not survive a restart: {}",
                        file.path(), e.toString());
                failing = true;
            }
        }
    }
}
