package dev.keypool.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import javax.sql.DataSource;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.batch.Batch;
import dev.keypool.batch.BatchResult;
import dev.keypool.batch.BatchStatus;
import dev.keypool.batch.BatchStore;
import dev.keypool.batch.Claimant;

/**
 * The batches of every instance in the shared database (tables {@code batch_jobs} and {@code batch_results}, Flyway
 * V5). A claim, a renewal and a status change are each one conditional {@code UPDATE}, so that two instances cannot
 * both take a batch nor both move it; a line's result is an {@code INSERT … ON CONFLICT DO NOTHING} on its
 * {@code (batch_id, line)} key, so a line answered twice is recorded once.
 */
public final class JdbcBatchStore implements BatchStore {

    private static final String COLUMNS = "body, lease_owner";

    private final DataSource dataSource;
    private final ObjectMapper mapper;

    public JdbcBatchStore(DataSource dataSource, ObjectMapper mapper) {
        this.dataSource = dataSource;
        this.mapper = mapper;
    }

    @Override
    public void create(Batch batch, Claimant claimant, Instant now) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("INSERT INTO batch_jobs (id, owner, status, inbox, input_file, "
                     + "created_at, ended_at, body, lease_owner, lease_until) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)")) {
            s.setString(1, batch.id());
            s.setString(2, BatchSql.owner(batch.owner()));
            s.setString(3, batch.status().apiName());
            s.setInt(4, batch.fromInbox() ? 1 : 0);
            s.setString(5, batch.inputFileId());
            s.setLong(6, batch.createdAt().toEpochMilli());
            s.setString(7, stored(batch));
            if (claimant == null) {
                s.setNull(8, Types.VARCHAR);
                s.setNull(9, Types.BIGINT);
            } else {
                s.setString(8, claimant.id());
                s.setLong(9, claimant.leaseUntil(now).toEpochMilli());
            }
            s.executeUpdate();
        } catch (SQLException e) {
            throw BatchSql.failed("Storing batch " + batch.id(), e);
        }
    }

    @Override
    public Optional<Batch> get(String id) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM batch_jobs WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(batch(c, r)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw BatchSql.failed("Reading batch " + id, e);
        }
    }

    @Override
    public List<Batch> list(String owner) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM batch_jobs WHERE owner = ? "
                     + "ORDER BY created_at DESC, id")) {
            s.setString(1, BatchSql.owner(owner));
            List<Batch> batches = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    batches.add(batch(c, r));
                }
            }
            return batches;
        } catch (SQLException e) {
            throw BatchSql.failed("Listing batches", e);
        }
    }

    @Override
    public boolean update(Batch batch, BatchStatus expected) {
        try (Connection c = dataSource.getConnection()) {
            Batch next = batch.copy();
            count(c, next);
            boolean over = next.status().terminal();
            // a batch over is under no lease: nothing is left to work
            try (PreparedStatement s = c.prepareStatement("UPDATE batch_jobs SET status = ?, ended_at = ?, body = ?"
                    + (over ? ", lease_owner = NULL, lease_until = NULL" : "") + " WHERE id = ? AND status = ?")) {
                s.setString(1, next.status().apiName());
                if (next.endedAt() == null) {
                    s.setNull(2, Types.BIGINT);
                } else {
                    s.setLong(2, next.endedAt().toEpochMilli());
                }
                s.setString(3, stored(next));
                s.setString(4, next.id());
                s.setString(5, expected.apiName());
                return s.executeUpdate() == 1;
            }
        } catch (SQLException e) {
            throw BatchSql.failed("Updating batch " + batch.id(), e);
        }
    }

    @Override
    public boolean record(String batchId, BatchResult result) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("INSERT INTO batch_results (batch_id, line, ok, record) "
                     + "VALUES (?, ?, ?, ?) ON CONFLICT (batch_id, line) DO NOTHING")) {
            s.setString(1, batchId);
            s.setInt(2, result.line());
            s.setInt(3, result.ok() ? 1 : 0);
            s.setString(4, mapper.writeValueAsString(result.record()));
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw BatchSql.failed("Recording a result of batch " + batchId, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Set<Integer> done(String batchId) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT line FROM batch_results WHERE batch_id = ?")) {
            s.setString(1, batchId);
            Set<Integer> done = new HashSet<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    done.add(r.getInt(1));
                }
            }
            return done;
        } catch (SQLException e) {
            throw BatchSql.failed("Reading the results of batch " + batchId, e);
        }
    }

    @Override
    public List<BatchResult> results(String batchId) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT line, ok, record FROM batch_results WHERE batch_id = ? "
                     + "ORDER BY line")) {
            s.setString(1, batchId);
            List<BatchResult> results = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ObjectNode record = (ObjectNode) mapper.readTree(r.getString(3));
                    results.add(new BatchResult(r.getInt(1), record.path("custom_id").asText(null), r.getInt(2) != 0, record));
                }
            }
            return results;
        } catch (SQLException e) {
            throw BatchSql.failed("Reading the results of batch " + batchId, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public boolean claim(String batchId, Claimant claimant, Instant now) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("UPDATE batch_jobs SET lease_owner = ?, lease_until = ? "
                     + "WHERE id = ? AND status NOT IN " + BatchSql.OVER
                     + " AND (lease_owner IS NULL OR lease_owner = ? OR lease_until <= ?)")) {
            s.setString(1, claimant.id());
            s.setLong(2, claimant.leaseUntil(now).toEpochMilli());
            s.setString(3, batchId);
            s.setString(4, claimant.id());
            s.setLong(5, now.toEpochMilli());
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw BatchSql.failed("Claiming batch " + batchId, e);
        }
    }

    @Override
    public void renew(Claimant claimant, Instant now) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("UPDATE batch_jobs SET lease_until = ? WHERE lease_owner = ? "
                     + "AND status NOT IN " + BatchSql.OVER)) {
            s.setLong(1, claimant.leaseUntil(now).toEpochMilli());
            s.setString(2, claimant.id());
            s.executeUpdate();
        } catch (SQLException e) {
            throw BatchSql.failed("Renewing the leases of batches", e);
        }
    }

    @Override
    public int release(Claimant claimant) {
        // a batch over holds no lease (update clears it)
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("UPDATE batch_jobs SET lease_owner = NULL, lease_until = NULL "
                     + "WHERE lease_owner = ?")) {
            s.setString(1, claimant.id());
            return s.executeUpdate();
        } catch (SQLException e) {
            throw BatchSql.failed("Releasing the leases of batches", e);
        }
    }

    @Override
    public List<String> claimable(Claimant claimant, Instant now) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT id FROM batch_jobs WHERE status NOT IN " + BatchSql.OVER
                     + " AND inbox = 0 AND (lease_owner IS NULL OR (lease_owner <> ? AND lease_until <= ?)) "
                     + "ORDER BY created_at")) {
            s.setString(1, claimant.id());
            s.setLong(2, now.toEpochMilli());
            return ids(s);
        } catch (SQLException e) {
            throw BatchSql.failed("Looking for batches to claim", e);
        }
    }

    @Override
    public Set<String> inputsInUse() {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT input_file FROM batch_jobs WHERE status NOT IN " + BatchSql.OVER)) {
            return new HashSet<>(ids(s));
        } catch (SQLException e) {
            throw BatchSql.failed("Reading the batches not over", e);
        }
    }

    @Override
    public int expireResults(Instant now, Duration retention) {
        try (Connection c = dataSource.getConnection()) {
            List<String> ended;
            try (PreparedStatement s = c.prepareStatement("SELECT DISTINCT r.batch_id FROM batch_results r "
                    + "JOIN batch_jobs b ON b.id = r.batch_id WHERE b.ended_at <= ?")) {
                s.setLong(1, now.minus(retention).toEpochMilli());
                ended = ids(s);
            }
            for (String id : ended) {
                try (PreparedStatement s = c.prepareStatement("DELETE FROM batch_results WHERE batch_id = ?")) {
                    s.setString(1, id);
                    s.executeUpdate();
                }
            }
            return ended.size();
        } catch (SQLException e) {
            throw BatchSql.failed("Deleting the results of batches over", e);
        }
    }

    @Override
    public void close() {
        // the data source is the database's, closed with it
    }

    /** The batch of the row at {@code r}, with the counts of its checkpoints while it runs. */
    private Batch batch(Connection c, ResultSet r) throws SQLException {
        Batch batch;
        try {
            batch = Batch.fromStored(mapper.readTree(r.getString(1)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        batch.claimedBy(r.getString(2));
        if (!batch.status().terminal()) {
            count(c, batch);
        }
        return batch;
    }

    private static void count(Connection c, Batch batch) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*), COALESCE(SUM(ok), 0) FROM batch_results "
                + "WHERE batch_id = ?")) {
            s.setString(1, batch.id());
            try (ResultSet r = s.executeQuery()) {
                r.next();
                int ok = r.getInt(2);
                batch.counts(ok, r.getInt(1) - ok);
            }
        }
    }

    private String stored(Batch batch) {
        try {
            return mapper.writeValueAsString(batch.toStored(mapper));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> ids(PreparedStatement s) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (ResultSet r = s.executeQuery()) {
            while (r.next()) {
                ids.add(r.getString(1));
            }
        }
        return ids;
    }
}
