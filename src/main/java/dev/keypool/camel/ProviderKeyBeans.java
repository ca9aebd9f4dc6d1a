package dev.keypool.camel;

import java.time.Clock;

import javax.sql.DataSource;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.admin.ProviderKeys;
import dev.keypool.auth.MasterKey;
import dev.keypool.camel.admin.ProviderKeyActions;
import dev.keypool.gateway.ChannelAssembly;
import dev.keypool.gateway.Channels;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.probe.ProbeSchedule;
import dev.keypool.store.JdbcProviderKeyStore;
import org.apache.camel.CamelContext;

/**
 * The provider keys added at runtime (routes/provider-keys.camel.yaml), bound by {@link AdminBeans} once
 * the database is open: read back and put into their channels' pools before any route takes traffic, kept by every
 * reload of keypool.yaml, and bound as {@code providerKeyActions}.
 */
final class ProviderKeyBeans {

    private ProviderKeyBeans() {
    }

    static void bind(CamelContext context, Channels channels, ChannelAssembly assembly, Clock clock,
                     GatewayMetrics metrics, ProbeSchedule probes) {
        DataSource dataSource = context.getRegistry().lookupByNameAndType("keypoolDataSource", DataSource.class);
        // the environment variable; as a property too (a system property, or a test's override for its gateway alone)
        String masterKey = context.getPropertiesComponent().resolveProperty(MasterKey.VARIABLE)
                .orElseGet(() -> System.getenv(MasterKey.VARIABLE));
        ProviderKeys keys = new ProviderKeys(new JdbcProviderKeyStore(dataSource), masterKey, channels, clock);
        keys.start();
        assembly.keepStoredKeys(keys::keysBeside);
        // the metrics and the health probes take the channels' keys as they are now: the stored ones, then each change
        Runnable keysChanged = () -> {
            metrics.refresh();
            probes.reload(channels.all());
        };
        context.getRegistry().bind("providerKeyActions", new ProviderKeyActions(keys, keysChanged, new ObjectMapper()));
        keysChanged.run();
    }
}
