package dev.keypool.camel;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.LinkedBlockingQueue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.admin.AdminRequests;
import dev.keypool.camel.admin.AdminUsage;
import dev.keypool.camel.pipeline.RequestLog;
import dev.keypool.config.GatewayConfig;
import dev.keypool.gateway.Channels;
import dev.keypool.metrics.GatewayMetrics;
import dev.keypool.store.Database;
import dev.keypool.store.RequestLogReader;
import dev.keypool.store.RequestLogRow;
import dev.keypool.store.RequestLogTime;
import dev.keypool.store.RequestLogWriter;
import dev.keypool.store.UsageReader;
import dev.keypool.store.UsageTotals;
import dev.keypool.tenant.Tenants;
import org.apache.camel.CamelContext;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane's database and the beans of routes/request-log.camel.yaml, bound by {@link GatewayConfiguration}:
 * {@code keypoolDataSource} (camel-sql's), {@code requestLog} (the rows' bounded queue), {@code requestLogWriter} and {@code databaseBeats}.
 * When the context stops, after the routes (so after the last request has offered its row), the rows still queued are
 * written, then the database closes.
 */
final class DatabaseBeans extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(DatabaseBeans.class);
    /** The registry name of the database's connection pool. */
    static final String DATA_SOURCE = "keypoolDataSource";

    private final Database database;
    private final RequestLog requestLog;
    private final RequestLogWriter writer;

    private DatabaseBeans(Database database, RequestLog requestLog, RequestLogWriter writer) {
        this.database = database;
        this.requestLog = requestLog;
        this.writer = writer;
    }

    /** Also reads the spend of the log back into {@code channels}' and {@code tenants}' figures ({@link UsageReadBack}). */
    static RequestLog bind(CamelContext context, GatewayConfig config, Path stateDir, Clock clock, GatewayMetrics metrics,
                           Channels channels, Tenants tenants) {
        int queueSize = Wiring.intSetting(context, "keypool.request-log.queue-size");
        int poolSize = Wiring.intSetting(context, "keypool.database.pool-size");
        long lockWaitMs = Wiring.longSetting(context, "keypool.database.lock-wait-ms");
        int bodyMaxBytes = Wiring.intSetting(context, "keypool.request-log.body-max-bytes");
        long start = System.nanoTime();
        Database database = Database.open(config.database().postgres(), stateDir, poolSize, lockWaitMs);
        LOG.info("Database: {}{}, schema {} in {} ms; request log {}", database.kind(),
                database.kind().equals("sqlite") ? " (" + stateDir.resolve(Database.SQLITE_FILE) + ")" : "",
                database.migrated() ? "migrated" : "up to date", (System.nanoTime() - start) / 1_000_000,
                config.requestLog().enabled() ? "on, rows kept " + config.database().retention().toDays() + " days"
                        + (config.requestLog().bodies() ? ", with request and answer bodies (up to " + bodyMaxBytes + " bytes each)" : "")
                        : "off");
        context.getRegistry().bind(DATA_SOURCE, database.dataSource());
        // the requests that offer and the writer that drains hold separate locks
        LinkedBlockingQueue<RequestLogRow> queue = new LinkedBlockingQueue<>(queueSize);
        RequestLog requestLog = new RequestLog(config.requestLog().enabled(), queue, clock, metrics,
                config.database().retention(), config.requestLog().bodies(), bodyMaxBytes);
        context.getRegistry().bind("requestLog", requestLog);
        RequestLogWriter writer = RequestLogWriter.of(database);
        RequestLogTime time = RequestLogTime.of(database);
        context.getRegistry().bind("requestLogWriter", writer);
        context.getRegistry().bind("databaseBeats", new DatabaseBeats());
        context.getRegistry().bind("adminRequests", new AdminRequests(new RequestLogReader(database.dataSource(), time),
                new ObjectMapper()));
        context.getRegistry().bind("adminUsage", new AdminUsage(new UsageReader(database.dataSource(), time), new ObjectMapper(),
                clock));
        UsageReadBack.restore(new UsageTotals(database.dataSource(), time), channels, tenants, clock);
        try {
            context.addService(new DatabaseBeans(database, requestLog, writer), true, true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot manage the database", e);
        }
        return requestLog;
    }

    @Override
    protected void doStop() {
        requestLog.writeRemaining(writer);
        database.close();
    }
}
