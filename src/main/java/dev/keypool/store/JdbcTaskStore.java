package dev.keypool.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import javax.sql.DataSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.batch.AsyncTask;
import dev.keypool.batch.BatchLimits;
import dev.keypool.batch.Claimant;
import dev.keypool.batch.StorageLimitException;
import dev.keypool.batch.TaskStatus;
import dev.keypool.batch.TaskStore;

/**
 * The async tasks of every instance in the shared database (table {@code batch_tasks}, Flyway V5): the request until
 * the task is done, then its answer. Starting, finishing and claiming a task are each one conditional {@code UPDATE}:
 * a task runs on the instance that holds its lease, and its first answer is the one kept. A tenant's queued tasks and
 * storage are counted over every instance, read before a task is written; two tasks of one tenant through two
 * instances at the same moment may both pass them.
 */
public final class JdbcTaskStore implements TaskStore {

    private static final String COLUMNS = "id, owner, endpoint, api, status, created_at, finished_at, response";

    private final DataSource dataSource;
    private final ObjectMapper mapper;
    private final Clock clock;
    private final BatchLimits limits;

    public JdbcTaskStore(DataSource dataSource, ObjectMapper mapper, Clock clock, BatchLimits limits) {
        this.dataSource = dataSource;
        this.mapper = mapper;
        this.clock = clock;
        this.limits = limits;
    }

    @Override
    public AsyncTask submit(String owner, String endpoint, String api, byte[] request, Claimant claimant) {
        Instant now = clock.instant();
        AsyncTask task = AsyncTask.queued(owner, endpoint, api, null, now);
        try (Connection c = dataSource.getConnection()) {
            checkRoom(c, owner, request.length);
            try (PreparedStatement s = c.prepareStatement("INSERT INTO batch_tasks (id, owner, endpoint, api, status, "
                    + "created_at, finished_at, request, response, bytes, lease_owner, lease_until) "
                    + "VALUES (?, ?, ?, ?, ?, ?, NULL, ?, NULL, ?, ?, ?)")) {
                s.setString(1, task.id());
                s.setString(2, BatchSql.owner(owner));
                s.setString(3, endpoint);
                s.setString(4, api);
                s.setString(5, task.status().apiName());
                s.setLong(6, now.toEpochMilli());
                s.setBytes(7, request);
                s.setLong(8, request.length);
                s.setString(9, claimant.id());
                s.setLong(10, claimant.leaseUntil(now).toEpochMilli());
                s.executeUpdate();
            }
            return task;
        } catch (SQLException e) {
            throw BatchSql.failed("Storing a task", e);
        }
    }

    @Override
    public void checkRoom(String owner, long bytes) {
        try (Connection c = dataSource.getConnection()) {
            checkRoom(c, owner, bytes);
        } catch (SQLException e) {
            throw BatchSql.failed("Counting a tenant's tasks", e);
        }
    }

    private void checkRoom(Connection c, String owner, long bytes) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM batch_tasks WHERE owner = ? "
                + "AND finished_at IS NULL")) {
            s.setString(1, BatchSql.owner(owner));
            try (ResultSet r = s.executeQuery()) {
                r.next();
                if (r.getLong(1) >= limits.maxQueuedTasks()) {
                    throw new StorageLimitException(StorageLimitException.Limit.QUEUED_TASKS, limits.maxQueuedTasks());
                }
            }
        }
        if (BatchSql.storedBytes(c, owner) + bytes > limits.maxStoredBytes()) {
            throw new StorageLimitException(StorageLimitException.Limit.STORED_BYTES, limits.maxStoredBytes());
        }
    }

    @Override
    public byte[] request(String id) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT request FROM batch_tasks WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                byte[] request = r.next() ? r.getBytes(1) : null;
                if (request == null) {
                    throw new IllegalStateException("task " + id + " has no request");
                }
                return request;
            }
        } catch (SQLException e) {
            throw BatchSql.failed("Reading the request of task " + id, e);
        }
    }

    @Override
    public Optional<AsyncTask> start(String id, Claimant claimant) {
        Instant now = clock.instant();
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement s = c.prepareStatement("UPDATE batch_tasks SET status = ?, lease_owner = ?, "
                    + "lease_until = ? WHERE id = ? AND finished_at IS NULL "
                    + "AND (lease_owner IS NULL OR lease_owner = ? OR lease_until <= ?)")) {
                s.setString(1, TaskStatus.IN_PROGRESS.apiName());
                s.setString(2, claimant.id());
                s.setLong(3, claimant.leaseUntil(now).toEpochMilli());
                s.setString(4, id);
                s.setString(5, claimant.id());
                s.setLong(6, now.toEpochMilli());
                if (s.executeUpdate() != 1) {
                    return Optional.empty();
                }
            }
            return read(c, id);
        } catch (SQLException e) {
            throw BatchSql.failed("Starting task " + id, e);
        }
    }

    @Override
    public Optional<AsyncTask> finish(String id, int statusCode, JsonNode body) {
        Instant now = clock.instant();
        try (Connection c = dataSource.getConnection()) {
            Optional<AsyncTask> task = read(c, id).filter(t -> !t.done());
            if (task.isEmpty()) {
                return Optional.empty();
            }
            AsyncTask done = task.get().finished(statusCode, body, now, mapper);
            String response = mapper.writeValueAsString(done.response());
            // the request goes: what the task keeps from now on is its answer
            try (PreparedStatement s = c.prepareStatement("UPDATE batch_tasks SET status = ?, finished_at = ?, "
                    + "response = ?, request = NULL, bytes = ?, lease_owner = NULL, lease_until = NULL "
                    + "WHERE id = ? AND finished_at IS NULL")) {
                s.setString(1, done.status().apiName());
                s.setLong(2, now.toEpochMilli());
                s.setString(3, response);
                s.setLong(4, response.length());
                s.setString(5, id);
                return s.executeUpdate() == 1 ? Optional.of(done) : Optional.empty();
            }
        } catch (SQLException e) {
            throw BatchSql.failed("Finishing task " + id, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Optional<AsyncTask> get(String id) {
        if (id == null) {
            return Optional.empty();
        }
        try (Connection c = dataSource.getConnection()) {
            Instant now = clock.instant();
            return read(c, id).filter(t -> now.isBefore((t.done() ? t.finishedAt() : t.createdAt()).plus(limits.retention())));
        } catch (SQLException e) {
            throw BatchSql.failed("Reading task " + id, e);
        }
    }

    @Override
    public void renew(Claimant claimant, Instant now) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("UPDATE batch_tasks SET lease_until = ? WHERE lease_owner = ? "
                     + "AND finished_at IS NULL")) {
            s.setLong(1, claimant.leaseUntil(now).toEpochMilli());
            s.setString(2, claimant.id());
            s.executeUpdate();
        } catch (SQLException e) {
            throw BatchSql.failed("Renewing the leases of tasks", e);
        }
    }

    @Override
    public int release(Claimant claimant) {
        // queued again, as a claim from a member gone queues it
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("UPDATE batch_tasks SET status = ?, lease_owner = NULL, "
                     + "lease_until = NULL WHERE lease_owner = ? AND finished_at IS NULL")) {
            s.setString(1, TaskStatus.QUEUED.apiName());
            s.setString(2, claimant.id());
            return s.executeUpdate();
        } catch (SQLException e) {
            throw BatchSql.failed("Releasing the leases of tasks", e);
        }
    }

    @Override
    public List<String> claim(Claimant claimant, Instant now, int max) {
        String free = "finished_at IS NULL AND (lease_owner IS NULL OR (lease_owner <> ? AND lease_until <= ?))";
        // queued here again: the member that ran it is gone
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("UPDATE batch_tasks SET status = ?, lease_owner = ?, lease_until = ? "
                     + "WHERE id IN (SELECT id FROM batch_tasks WHERE " + free + " ORDER BY created_at LIMIT ?) AND " + free
                     + " RETURNING id")) {
            s.setString(1, TaskStatus.QUEUED.apiName());
            s.setString(2, claimant.id());
            s.setLong(3, claimant.leaseUntil(now).toEpochMilli());
            s.setString(4, claimant.id());
            s.setLong(5, now.toEpochMilli());
            s.setInt(6, max);
            s.setString(7, claimant.id());
            s.setLong(8, now.toEpochMilli());
            List<String> ids = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getString(1));
                }
            }
            return ids;
        } catch (SQLException e) {
            throw BatchSql.failed("Claiming tasks", e);
        }
    }

    @Override
    public int expire() {
        long before = clock.instant().minus(limits.retention()).toEpochMilli();
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("DELETE FROM batch_tasks WHERE (finished_at IS NOT NULL AND "
                     + "finished_at <= ?) OR (finished_at IS NULL AND created_at <= ?)")) {
            s.setLong(1, before);
            s.setLong(2, before);
            return s.executeUpdate();
        } catch (SQLException e) {
            throw BatchSql.failed("Deleting expired tasks", e);
        }
    }

    private Optional<AsyncTask> read(Connection c, String id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM batch_tasks WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return Optional.empty();
                }
                long finished = r.getLong(7);
                boolean done = !r.wasNull();
                String response = r.getString(8);
                return Optional.of(new AsyncTask(r.getString(1), BatchSql.tenant(r.getString(2)), r.getString(3),
                        r.getString(4), null, Instant.ofEpochMilli(r.getLong(6)),
                        TaskStatus.valueOf(r.getString(5).toUpperCase(Locale.ROOT)),
                        response == null ? null : mapper.readTree(response), done ? Instant.ofEpochMilli(finished) : null));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
