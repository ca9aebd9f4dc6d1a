package dev.keypool.admin;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import dev.keypool.auth.MasterKey;
import dev.keypool.config.ChannelConfig;
import dev.keypool.config.KeyConfig;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.GatewayError;
import dev.keypool.pool.ApiKey;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Provider keys added at runtime (design §9): kept encrypted in a {@link ProviderKeyStore} beside keypool.yaml, and
 * served by their channel's pool beside the file's keys. A key added joins its pool and warms up; a key removed
 * drains and is let go once its calls in flight are recorded. A reload of keypool.yaml keeps them (the channel
 * assembly asks {@link #keysBeside}); keys of the file are the file's, never added or removed here. Several instances
 * on one database see each other's keys through {@link #sync}. Secrets live decrypted only here and in the pools.
 */
public final class ProviderKeys {

    private static final Logger LOG = LoggerFactory.getLogger(ProviderKeys.class);

    /** A stored key, decrypted. */
    private record Held(String channel, String fingerprint, String secret, String label) {

        ApiKey apiKey() {
            return new ApiKey(secret, label, 1);
        }

        @Override
        public String toString() {
            return "Held[" + fingerprint + "(" + channel + ")]";
        }
    }

    /** What an add or a remove did, as the admin API answers it. */
    public record Change(String channel, String fingerprint, String label, int inFlight) {
    }

    private final ProviderKeyStore store;
    private final MasterKey masterKey;
    /** Why there is no master key to use (not set, not valid); null when there is one. */
    private final String masterKeyProblem;
    private final Channels channels;
    private final Clock clock;
    /** The stored keys decrypted, by channel and fingerprint; replaced as a whole on every change. */
    private volatile Map<String, Map<String, Held>> held = Map.of();
    /** Rows that could not be decrypted, told once each (guarded by this). */
    private final Set<String> unreadable = new HashSet<>();
    /** Whether the last read of the store failed, so that an outage is told once (guarded by this). */
    private boolean storeDown;

    /**
     * @param masterKey the value of {@link MasterKey#VARIABLE}; null or invalid: stored keys are not served and none
     *                  can be added, which is said once at {@link #start}
     */
    public ProviderKeys(ProviderKeyStore store, String masterKey, Channels channels, Clock clock) {
        this.store = store;
        this.channels = channels;
        this.clock = clock;
        MasterKey parsed = null;
        String problem = null;
        try {
            parsed = MasterKey.parse(masterKey);
        } catch (IllegalArgumentException invalid) {
            problem = invalid.getMessage();
        }
        this.masterKey = parsed;
        this.masterKeyProblem = problem;
    }

    /**
     * The stored keys into the running channels' pools, as keys in service already (no warm-up); rows that cannot be
     * read without a master key, or with another one, are left out and said in one ERROR line. Nothing here stops the
     * gateway: it serves the file's keys.
     */
    public synchronized void start() {
        List<ProviderKeyStore.Row> rows;
        try {
            rows = store.all();
        } catch (ProviderKeyStore.UnavailableException down) {
            storeDown = true;
            LOG.error("Provider keys added at runtime are not served until the database answers: {}", down.getMessage());
            return;
        }
        if (masterKey == null && !rows.isEmpty()) {
            rows.forEach(row -> unreadable.add(id(row.channel(), row.fingerprint())));
            LOG.error("{} provider keys stored in the database are not served: {} ({}). Start KeyPool with the master "
                    + "key they were added with", rows.size(), masterKeyProblem, fingerprints(rows));
            return;
        }
        held = opened(rows);
        reconcile(false);
        int served = held.values().stream().mapToInt(Map::size).sum();
        if (served > 0) {
            LOG.info("{} provider keys added at runtime, from the database ({})", served, held.values().stream()
                    .flatMap(m -> m.values().stream()).map(h -> h.fingerprint() + "(" + h.channel() + ")")
                    .collect(Collectors.joining(", ")));
        }
    }

    /**
     * Adds a key to a channel: stored encrypted, then served, warming up over the channel's warmup.
     *
     * @throws GatewayError 404 no such channel, 400 an invalid key, 409 no master key or the key is there already,
     *                      503 the store cannot be written
     */
    public synchronized Change add(String channelName, String secret, String label) {
        Channel channel = channel(channelName);
        if (masterKey == null) {
            throw new GatewayError(409, "invalid_request_error", "master_key_not_set", masterKeyProblem
                    + ": keys added at runtime are stored encrypted with it. Set " + MasterKey.VARIABLE
                    + " to 32 random bytes as base64 (openssl rand -base64 32) and restart KeyPool", null);
        }
        ApiKey key;
        try {
            key = new ApiKey(secret, label, 1);
        } catch (IllegalArgumentException invalid) {
            // its message names the key by fingerprint only
            throw GatewayError.badRequest("invalid_key", invalid.getMessage());
        }
        String fingerprint = key.fingerprint();
        if (channel.config().keysByFingerprint().containsKey(fingerprint)) {
            throw new GatewayError(409, "invalid_request_error", "key_in_config", "Key " + fingerprint
                    + " is in keypool.yaml for channel '" + channel.name() + "' already", null);
        }
        MasterKey.Sealed sealed = masterKey.seal(secret, id(channel.name(), fingerprint));
        boolean inserted;
        try {
            inserted = store.insert(new ProviderKeyStore.Row(channel.name(), fingerprint, label, sealed.iv(),
                    sealed.ciphertext(), clock.instant()));
        } catch (ProviderKeyStore.UnavailableException down) {
            throw storeDown(down, "added");
        }
        if (!inserted) {
            throw new GatewayError(409, "invalid_request_error", "key_exists", "Key " + fingerprint
                    + " was added to channel '" + channel.name() + "' already", null);
        }
        hold(new Held(channel.name(), fingerprint, secret, label));
        channel.pool().add(key, true);
        return new Change(channel.name(), fingerprint, label, 0);
    }

    /**
     * Removes a key added at runtime: no new calls, those in flight finish, then it is let go; forgotten by the store.
     *
     * @throws GatewayError 404 no such stored key, 409 a key of keypool.yaml, 503 the store cannot be written
     */
    public synchronized Change remove(String channelName, String fingerprint) {
        Optional<Channel> channel = channels.get(channelName == null ? "" : channelName);
        if (channel.isPresent() && channel.get().config().keysByFingerprint().containsKey(fingerprint)) {
            throw new GatewayError(409, "invalid_request_error", "key_in_config", "Key " + fingerprint
                    + " of channel '" + channelName + "' is in keypool.yaml: remove it there and reload", null);
        }
        Held gone = held.getOrDefault(channelName, Map.of()).get(fingerprint);
        boolean deleted;
        try {
            deleted = store.delete(channelName, fingerprint);
        } catch (ProviderKeyStore.UnavailableException down) {
            throw storeDown(down, "removed");
        }
        if (gone == null && !deleted) {
            throw new GatewayError(404, "invalid_request_error", "key_not_found", "No key '" + fingerprint
                    + "' added to channel '" + channelName + "'", null);
        }
        release(channelName, fingerprint);
        int inFlight = channel.flatMap(c -> c.pool().find(fingerprint)).map(ApiKey::inFlight).orElse(0);
        channel.ifPresent(c -> c.pool().remove(fingerprint));
        return new Change(channelName, fingerprint, gone == null ? null : gone.label(), inFlight);
    }

    /**
     * Reads the store again and applies what other instances added or removed; then makes sure every stored key is in
     * its channel's pool (a reload that ran beside an add may have left it out).
     *
     * @return whether any pool changed
     */
    public synchronized boolean sync() {
        List<ProviderKeyStore.Row> rows;
        try {
            rows = store.all();
        } catch (ProviderKeyStore.UnavailableException down) {
            if (!storeDown) {
                storeDown = true;
                LOG.warn("Provider keys: {}; keys added or removed on other instances apply when it answers again",
                        down.getMessage());
            }
            return reconcile(true);
        }
        if (storeDown) {
            storeDown = false;
            LOG.info("Provider keys: the database answers again");
        }
        Set<String> stored = new HashSet<>();
        List<ProviderKeyStore.Row> fresh = new ArrayList<>();
        for (ProviderKeyStore.Row row : rows) {
            String id = id(row.channel(), row.fingerprint());
            stored.add(id);
            if (!held.getOrDefault(row.channel(), Map.of()).containsKey(row.fingerprint()) && !unreadable.contains(id)) {
                fresh.add(row);
            }
        }
        boolean changed = false;
        for (Map<String, Held> ofChannel : held.values()) {
            for (Held h : List.copyOf(ofChannel.values())) {
                if (!stored.contains(id(h.channel(), h.fingerprint()))) {
                    release(h.channel(), h.fingerprint());
                    changed |= channels.get(h.channel()).map(c -> c.pool().remove(h.fingerprint())).orElse(false);
                }
            }
        }
        unreadable.retainAll(stored);
        if (!fresh.isEmpty()) {
            if (masterKey == null) {
                fresh.forEach(row -> unreadable.add(id(row.channel(), row.fingerprint())));
                LOG.error("{} provider keys added on another instance are not served here: {} ({})", fresh.size(),
                        masterKeyProblem, fingerprints(fresh));
            } else {
                opened(fresh).values().forEach(m -> m.values().forEach(this::hold));
            }
        }
        return reconcile(true) || changed;
    }

    /**
     * The stored keys of a channel that keypool.yaml does not have, as new keys for its pool: what a reload of the
     * file keeps beside the file's keys.
     */
    public List<ApiKey> keysBeside(ChannelConfig config) {
        Map<String, Held> ofChannel = held.getOrDefault(config.name(), Map.of());
        if (ofChannel.isEmpty()) {
            return List.of();
        }
        Map<String, KeyConfig> inFile = config.keysByFingerprint();
        return ofChannel.values().stream().filter(h -> !inFile.containsKey(h.fingerprint())).map(Held::apiKey).toList();
    }

    /** Whether keys can be added: a valid master key is set. */
    public boolean canAdd() {
        return masterKey != null;
    }

    /** Every stored key not in its channel's pool joins it; a key of the file stays the file's. */
    private boolean reconcile(boolean entersService) {
        boolean changed = false;
        for (Map<String, Held> ofChannel : held.values()) {
            for (Held h : ofChannel.values()) {
                Optional<Channel> channel = channels.get(h.channel());
                if (channel.isPresent() && !channel.get().config().keysByFingerprint().containsKey(h.fingerprint())) {
                    KeyPool pool = channel.get().pool();
                    changed |= pool.find(h.fingerprint()).isEmpty() && pool.add(h.apiKey(), entersService);
                }
            }
        }
        return changed;
    }

    /** The rows decrypted; those that do not decrypt are left out, in one ERROR line. */
    private Map<String, Map<String, Held>> opened(List<ProviderKeyStore.Row> rows) {
        Map<String, Map<String, Held>> opened = new LinkedHashMap<>();
        List<ProviderKeyStore.Row> wrong = new ArrayList<>();
        for (ProviderKeyStore.Row row : rows) {
            String id = id(row.channel(), row.fingerprint());
            String secret;
            try {
                secret = masterKey.open(new MasterKey.Sealed(row.iv(), row.ciphertext()), id);
            } catch (MasterKey.WrongKeyException e) {
                secret = null;
            }
            if (secret == null || !Fingerprint.of(secret).equals(row.fingerprint())) {
                unreadable.add(id);
                wrong.add(row);
                continue;
            }
            opened.computeIfAbsent(row.channel(), c -> new LinkedHashMap<>())
                    .put(row.fingerprint(), new Held(row.channel(), row.fingerprint(), secret, row.label()));
        }
        if (!wrong.isEmpty()) {
            LOG.error("{} provider keys stored in the database are not served: {} ({})", wrong.size(),
                    MasterKey.WRONG_KEY, fingerprints(wrong));
        }
        return opened;
    }

    private void hold(Held key) {
        Map<String, Map<String, Held>> next = copy();
        next.computeIfAbsent(key.channel(), c -> new LinkedHashMap<>()).put(key.fingerprint(), key);
        held = freeze(next);
    }

    private void release(String channel, String fingerprint) {
        Map<String, Map<String, Held>> next = copy();
        Map<String, Held> ofChannel = next.get(channel);
        if (ofChannel != null && ofChannel.remove(fingerprint) != null) {
            if (ofChannel.isEmpty()) {
                next.remove(channel);
            }
            held = freeze(next);
        }
    }

    private Map<String, Map<String, Held>> copy() {
        Map<String, Map<String, Held>> copy = new LinkedHashMap<>();
        held.forEach((channel, keys) -> copy.put(channel, new LinkedHashMap<>(keys)));
        return copy;
    }

    private static Map<String, Map<String, Held>> freeze(Map<String, Map<String, Held>> map) {
        Map<String, Map<String, Held>> frozen = new LinkedHashMap<>();
        map.forEach((channel, keys) -> frozen.put(channel, Collections.unmodifiableMap(keys)));
        return Collections.unmodifiableMap(frozen);
    }

    private static GatewayError storeDown(ProviderKeyStore.UnavailableException down, String what) {
        return new GatewayError(503, "service_unavailable_error", "key_store_unavailable", down.getMessage()
                + "; the key was not " + what + ", retry when the database answers", 5L);
    }

    private Channel channel(String name) {
        return channels.get(name == null ? "" : name).orElseThrow(() -> new GatewayError(404, "invalid_request_error",
                "channel_not_found", "No channel '" + name + "' in the configuration", null));
    }

    /** The associated data of a stored key's ciphertext, and its name in this class's sets. */
    private static String id(String channel, String fingerprint) {
        return channel + "\n" + fingerprint;
    }

    private static String fingerprints(List<ProviderKeyStore.Row> rows) {
        return rows.stream().map(r -> r.fingerprint() + "(" + r.channel() + ")").collect(Collectors.joining(", "));
    }
}
