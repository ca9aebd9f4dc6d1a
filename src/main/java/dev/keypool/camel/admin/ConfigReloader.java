package dev.keypool.camel.admin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.admin.Cluster;
import dev.keypool.admin.RuntimeChanges;
import dev.keypool.admin.RuntimeTenants;
import dev.keypool.camel.pipeline.Exchanges;
import dev.keypool.camel.routes.ChannelRouteNames;
import dev.keypool.camel.routes.ChannelRoutes;
import dev.keypool.config.ConfigException;
import dev.keypool.config.ConfigLoader;
import dev.keypool.config.GatewayConfig;
import dev.keypool.gateway.Channel;
import dev.keypool.gateway.ChannelAssembly;
import dev.keypool.gateway.Channels;
import dev.keypool.gateway.GatewayError;
import dev.keypool.probe.ProbeSchedule;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.routing.ModelGroups;
import dev.keypool.tenant.Tenants;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POST /admin/reload, and the file watch of {@code admin.watchConfig} (design §9): re-reads keypool.yaml and applies it
 * to the running gateway through {@link ChannelAssembly}; an invalid file changes nothing. A new channel gets its
 * breaker bound and its route made from the {@code keypool-channel} template; the operators' runtime changes are laid
 * over the new file again, the admin token and the tenants follow the file, with what the admin API set laid over them
 * ({@link RuntimeTenants}; a removed tenant's token is refused from the next request on; requests in flight finish).
 * The queue settings apply at the next start.
 */
public final class ConfigReloader {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigReloader.class);

    private final CamelContext context;
    private final Path file;
    private final ConfigLoader loader;
    private final ChannelAssembly assembly;
    private final Channels channels;
    private final RuntimeChanges changes;
    private final AdminGuard guard;
    private final GatewayMetrics metrics;
    private final ObjectMapper mapper;
    private final ProbeSchedule probes;
    private final RuntimeTenants tenants;
    // guarded by this
    private GatewayConfig current;
    /** The SHA-256 of the file as last read (applied or refused), so that the watch reads each version once. */
    private byte[] seen;
    /** The SHA-256 of the file in force: read at startup, then as last applied. */
    private volatile byte[] applied;
    private volatile Cluster cluster;
    private volatile Duration reloadWait = Duration.ZERO;

    public ConfigReloader(CamelContext context, Path file, ConfigLoader loader, GatewayConfig loaded, ChannelAssembly assembly,
                          Channels channels, RuntimeChanges changes, AdminGuard guard, GatewayMetrics metrics,
                          ProbeSchedule probes, ObjectMapper mapper, RuntimeTenants tenants) {
        this.probes = probes;
        this.tenants = tenants;
        this.context = context;
        this.file = file;
        this.loader = loader;
        this.current = loaded;
        this.assembly = assembly;
        this.channels = channels;
        this.changes = changes;
        this.guard = guard;
        this.metrics = metrics;
        this.mapper = mapper;
        this.seen = digest(read());
        this.applied = seen;
        this.cluster = Cluster.alone(() -> {
            throw new IllegalStateException("no cluster joined");
        });
    }

    /**
     * POST /admin/reload: {@code ?scope=instance} reloads this instance: 200 with what changed, or 400 listing every
     * problem of the file (nothing changed then). {@code ?scope=cluster}, the default with Redis, reloads every live
     * instance: {@code {"scope":"cluster","instances":[{"instance","status","answer"}…]}}, 200 when each one reloaded,
     * 400 {@code invalid_config} when one refused its file, 504 {@code reload_incomplete} when one did not answer
     * within {@code keypool.cluster.reload-wait-ms}.
     */
    public void reload(Exchange exchange) throws IOException {
        String scope = exchange.getMessage().getHeader("scope", String.class);
        if (scope == null || scope.isBlank()) {
            scope = cluster.shared() ? "cluster" : "instance";
        }
        if (!scope.equals("cluster") && !scope.equals("instance")) {
            throw GatewayError.badRequest("invalid_scope", "scope must be 'cluster' (every instance) or 'instance' (this one), "
                    + "not '" + scope + "'");
        }
        Cluster.ReloadReply here = reloadHere("admin API");
        if (scope.equals("instance")) {
            Exchanges.answer(exchange.getMessage(), here.status(), "application/json",
                    here.body().getBytes(StandardCharsets.UTF_8));
            return;
        }
        List<Cluster.ReloadReply> replies = new ArrayList<>();
        replies.add(here);
        replies.addAll(cluster.reloadOthers(reloadWait));
        ObjectNode answer = mapper.createObjectNode();
        answer.put("scope", "cluster");
        ArrayNode instances = answer.putArray("instances");
        List<String> refused = new ArrayList<>();
        List<String> silent = new ArrayList<>();
        for (Cluster.ReloadReply reply : replies) {
            ObjectNode node = instances.addObject().put("instance", reply.instance());
            if (reply.status() == 0) {
                node.putNull("status");
                node.put("answer", "no answer within " + reloadWait.toMillis() + " ms");
                silent.add(reply.instance());
                continue;
            }
            node.put("status", reply.status());
            node.set("answer", mapper.readTree(reply.body()));
            if (reply.status() != 200) {
                refused.add(reply.instance());
            }
        }
        int status = 200;
        if (!refused.isEmpty()) {
            status = 400;
            answer.putObject("error").put("message", "Not reloaded on " + String.join(", ", refused)
                    + ": each answer says why; the others reloaded").put("type", "invalid_request_error")
                    .put("code", "invalid_config");
        } else if (!silent.isEmpty()) {
            status = 504;
            answer.putObject("error").put("message", "No answer from " + String.join(", ", silent) + " within "
                    + reloadWait.toMillis() + " ms; the others reloaded").put("type", "server_error")
                    .put("code", "reload_incomplete");
        }
        Exchanges.answer(exchange.getMessage(), status, "application/json",
                mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(answer));
    }

    /** This instance's reload, as its answer to POST /admin/reload?scope=instance. */
    private Cluster.ReloadReply reloadHere(String by) {
        ObjectNode answer = mapper.createObjectNode();
        int status;
        try {
            Applied applied = apply(by);
            ChannelAssembly.Reload done = applied.channels();
            status = 200;
            answer.put("reloaded", file.toString());
            answer.put("summary", done.summary());
            answer.putPOJO("channelsAdded", done.added());
            answer.putPOJO("channelsKept", done.kept());
            answer.putPOJO("channelsRemoved", done.removed());
            ObjectNode keys = answer.putObject("keys");
            done.keys().forEach((channel, reload) -> keys.putObject(channel).putPOJO("added", reload.added())
                    .putPOJO("kept", reload.kept()).putPOJO("removed", reload.removed()));
            Tenants.Reload tenantsDone = applied.tenants();
            answer.putObject("tenants").putPOJO("added", tenantsDone.added()).putPOJO("changed", tenantsDone.changed())
                    .putPOJO("removed", tenantsDone.removed());
            answer.put("configDigest", digest());
        } catch (ConfigException invalid) {
            status = 400;
            ObjectNode error = answer.putObject("error");
            error.put("message", invalid.getMessage() + "\nThe running configuration is unchanged.");
            error.put("type", "invalid_request_error");
            error.put("code", "invalid_config");
            ArrayNode problems = error.putArray("problems");
            invalid.problems().forEach(problems::add);
        }
        try {
            return new Cluster.ReloadReply(cluster.instance(), status,
                    mapper.writerWithDefaultPrettyPrinter().writeValueAsString(answer));
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * Takes part in the reloads of every instance: another instance's {@code POST /admin/reload?scope=cluster} reloads
     * this one too; its own waits up to {@code wait} for the others' answers.
     */
    public void joinCluster(Cluster cluster, Duration wait) {
        this.cluster = cluster;
        this.reloadWait = wait;
        cluster.answerReloads(() -> reloadHere("cluster reload"));
    }

    /** The first 16 hex digits of the SHA-256 of the keypool.yaml in force (as last applied), as /admin/status shows it. */
    public String digest() {
        byte[] running = applied;
        return running == null ? null : HexFormat.of().formatHex(running, 0, 8);
    }

    /** Timer of the file watch: reloads when the file's content changed, if {@code admin.watchConfig} is on. */
    public void reloadIfChanged() {
        synchronized (this) {
            if (current.admin() == null || !current.admin().watchConfig()) {
                return;
            }
            byte[] now = digest(read());
            if (now == null || Arrays.equals(now, seen)) {
                return;
            }
        }
        try {
            apply("file change");
        } catch (ConfigException invalid) {
            LOG.warn("{}\nThe running configuration is unchanged.", invalid.getMessage());
        }
    }

    /**
     * Reads, validates and applies the file, one reload at a time.
     *
     * @throws ConfigException when the file is invalid; nothing is changed then
     */
    synchronized Applied apply(String by) {
        byte[] content = read();
        seen = digest(content);
        GatewayConfig next = loader.load(file);
        applied = seen;
        ChannelAssembly.Reload done = assembly.reload(channels, next.channels());
        for (String added : done.added()) {
            Channel channel = channels.get(added).orElseThrow();
            context.getRegistry().bind(ChannelRouteNames.breaker(added), channel.breaker());
            if (context.getRoute(ChannelRouteNames.routeId(added)) == null) {
                addChannelRoute(added);
            }
        }
        channels.all().forEach(changes::applyTo);
        guard.replaceToken(next.admin() == null ? null : next.admin().token());
        Tenants.Reload tenantsDone = tenants.fileRead(next.tenants(), "keypool.yaml reloaded");
        // the file's model groups, weights included: weights set through the admin API give way to the file's
        ModelGroups groups = context.getRegistry().lookupByNameAndType("modelGroups", ModelGroups.class);
        if (groups != null) {
            groups.replace(next.modelGroups());
        }
        if (!next.queue().equals(current.queue())) {
            LOG.warn("KeyPool configuration {}: queue settings changed, they apply at the next start", file);
        }
        if (next.tenants().isEmpty() && !current.tenants().isEmpty()) {
            LOG.warn("No tenants configured any more: the gateway is open to every client that can reach it");
        }
        current = next;
        metrics.refresh();
        probes.reload(channels.all());
        LOG.info("KeyPool configuration {} reloaded ({}): {}; {}", file, by, done.summary(), tenantsDone.summary());
        return new Applied(done, tenantsDone);
    }

    /** What a reload changed. */
    record Applied(ChannelAssembly.Reload channels, Tenants.Reload tenants) {
    }

    private void addChannelRoute(String channel) {
        try {
            TemplatedRouteBuilder.builder(context, ChannelRoutes.TEMPLATE)
                    .routeId(ChannelRouteNames.routeId(channel))
                    .prefixId(ChannelRouteNames.nodePrefix(channel))
                    .parameter("channel", channel)
                    .add();
        } catch (RuntimeException e) {
            throw new IllegalStateException("Channel [" + channel + "] route could not be made", e);
        }
    }

    private byte[] read() {
        try {
            return Files.readAllBytes(file);
        } catch (IOException missing) {
            return null;
        }
    }

    private static byte[] digest(byte[] content) {
        if (content == null) {
            return null;
        }
        try {
            return MessageDigest.getInstance("SHA-256").digest(content);
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
