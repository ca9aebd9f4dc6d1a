package dev.keypool.admin;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.Optional;

import dev.keypool.config.ConfigLoader;
import dev.keypool.gateway.ChannelAssembly;
import dev.keypool.gateway.ChannelMeters;
import dev.keypool.gateway.Channels;
import dev.keypool.pool.Fingerprint;
import dev.keypool.pool.KeyPool;
import dev.keypool.store.Database;
import dev.keypool.store.JdbcProviderKeyStore;
import dev.keypool.testing.LogCapture;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two gateways' provider keys on one database (a real SQLite file): what one adds or removes, the other applies at its
 * next sync; a row it cannot decrypt is told once; a stored key missing from its pool is put back.
 */
class ProviderKeysSyncTest {

    private static final String RAW = "sk-runtime-sync-1";
    private static final String FINGERPRINT = Fingerprint.of(RAW);

    @TempDir
    Path dir;

    private final LogCapture logs = LogCapture.of(ProviderKeys.class);
    private Database database;

    @AfterEach
    void close() {
        if (database != null) {
            database.close();
        }
        logs.close();
    }

    private static String masterKey() {
        byte[] raw = new byte[32];
        new SecureRandom().nextBytes(raw);
        return Base64.getEncoder().encodeToString(raw);
    }

    /** One instance: its own channels, on the shared database. */
    private record Instance(ProviderKeys keys, Channels channels) {
        KeyPool pool() {
            return channels.get("alpha").orElseThrow().pool();
        }
    }

    private Instance instance(String masterKey) {
        if (database == null) {
            database = Database.open(Optional.empty(), dir, 2, 5000);
        }
        ChannelAssembly assembly = new ChannelAssembly(Clock.systemUTC(), change -> { }, name -> ChannelMeters.NONE);
        Channels channels = new Channels(new ConfigLoader(name -> null).parse("""
                channels:
                  - name: alpha
                    baseUrl: http://127.0.0.1:1
                    models: [m]
                    keys:
                      - key: sk-file-1
                """, "test").channels().stream().map(assembly::build).toList());
        ProviderKeys keys = new ProviderKeys(new JdbcProviderKeyStore(database.dataSource()), masterKey, channels,
                Clock.systemUTC());
        keys.start();
        assembly.keepStoredKeys(keys::keysBeside);
        return new Instance(keys, channels);
    }

    @Test
    void should_apply_what_another_instance_added_or_removed_at_the_next_sync() {
        String master = masterKey();
        Instance a = instance(master);
        Instance b = instance(master);

        a.keys().add("alpha", RAW, null);

        assertThat(b.pool().find(FINGERPRINT)).isEmpty();
        assertThat(b.keys().sync()).isTrue();
        assertThat(b.pool().find(FINGERPRINT)).isPresent();
        assertThat(b.keys().sync()).isFalse();

        a.keys().remove("alpha", FINGERPRINT);

        assertThat(b.keys().sync()).isTrue();
        assertThat(b.pool().find(FINGERPRINT)).isEmpty();
    }

    @Test
    void should_tell_a_row_it_cannot_decrypt_once() {
        Instance a = instance(masterKey());
        Instance b = instance(masterKey());
        a.keys().add("alpha", RAW, null);

        b.keys().sync();
        b.keys().sync();

        assertThat(b.pool().find(FINGERPRINT)).isEmpty();
        assertThat(logs.messages(Level.ERROR)).singleElement().asString().contains(FINGERPRINT + "(alpha)")
                .doesNotContain(RAW);
    }

    @Test
    void should_put_a_stored_key_back_into_a_pool_that_lost_it() {
        Instance a = instance(masterKey());
        a.keys().add("alpha", RAW, null);
        // as a reload that read the stored keys just before the add would leave it
        a.pool().remove(FINGERPRINT);

        assertThat(a.keys().sync()).isTrue();

        assertThat(a.pool().find(FINGERPRINT)).isPresent();
    }
}
