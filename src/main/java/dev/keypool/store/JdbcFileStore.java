package dev.keypool.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import javax.sql.DataSource;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.ByteBufferBackedInputStream;
import dev.keypool.batch.BatchLimits;
import dev.keypool.batch.FileStore;
import dev.keypool.batch.StorageLimitException;

/**
 * The files of the batch API of every instance, contents included, in the shared database (table {@code batch_files},
 * Flyway V5). An upload is streamed to the database from the bytes the edge spooled to disk, never copied whole into
 * the heap on the way. A tenant's storage is the sum of its files and tasks on every instance, read before an upload;
 * two uploads of one tenant through two instances at the same moment may both pass it.
 */
public final class JdbcFileStore implements FileStore {

    private final DataSource dataSource;
    private final ObjectMapper mapper;
    private final Clock clock;
    private final BatchLimits limits;

    public JdbcFileStore(DataSource dataSource, ObjectMapper mapper, Clock clock, BatchLimits limits) {
        this.dataSource = dataSource;
        this.mapper = mapper;
        this.clock = clock;
        this.limits = limits;
    }

    @Override
    public StoredFile create(String filename, String purpose, String owner, byte[] content) {
        ObjectNode object = FileStore.object(mapper, filename, purpose, content.length, clock.instant(), limits.retention());
        try (Connection c = dataSource.getConnection()) {
            return insert(c, owner, object, ByteBuffer.wrap(content));
        } catch (SQLException e) {
            throw BatchSql.failed("Storing a file", e);
        }
    }

    @Override
    public StoredFile upload(String filename, String purpose, String owner, ByteBuffer content, Duration expiresAfter) {
        ObjectNode object = FileStore.object(mapper, filename, purpose, content.remaining(), clock.instant(),
                expiresAfter == null ? limits.retention() : expiresAfter);
        try (Connection c = dataSource.getConnection()) {
            if (BatchSql.storedBytes(c, owner) + bytes(object, content.remaining()) > limits.maxStoredBytes()) {
                throw new StorageLimitException(StorageLimitException.Limit.STORED_BYTES, limits.maxStoredBytes());
            }
            return insert(c, owner, object, content);
        } catch (SQLException e) {
            throw BatchSql.failed("Storing an upload", e);
        }
    }

    private StoredFile insert(Connection c, String owner, ObjectNode object, ByteBuffer content) throws SQLException {
        String id = object.get("id").asText();
        int length = content.remaining();
        try (PreparedStatement s = c.prepareStatement("INSERT INTO batch_files (id, owner, object, bytes, expires_at, "
                + "content) VALUES (?, ?, ?, ?, ?, ?)");
             InputStream in = new ByteBufferBackedInputStream(content.slice())) {
            s.setString(1, id);
            s.setString(2, BatchSql.owner(owner));
            s.setString(3, object.toString());
            s.setLong(4, bytes(object, length));
            s.setLong(5, object.get("expires_at").asLong() * 1000);
            s.setBinaryStream(6, in, length);
            s.executeUpdate();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new StoredFile(id, owner, object);
    }

    /** What a file counts in its owner's storage: its content and its file object. */
    private static long bytes(ObjectNode object, long contentLength) {
        return contentLength + object.toString().length();
    }

    @Override
    public Optional<StoredFile> get(String id) {
        if (!FileStore.wellFormed(id)) {
            return Optional.empty();
        }
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT owner, object FROM batch_files WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return Optional.empty();
                }
                StoredFile file = new StoredFile(id, BatchSql.tenant(r.getString(1)), (ObjectNode) mapper.readTree(r.getString(2)));
                return clock.instant().isBefore(file.expiresAt()) ? Optional.of(file) : Optional.empty();
            }
        } catch (SQLException e) {
            throw BatchSql.failed("Reading file " + id, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public byte[] content(String id) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT content FROM batch_files WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    throw new IllegalStateException("no file " + id);
                }
                return r.getBytes(1);
            }
        } catch (SQLException e) {
            throw BatchSql.failed("Reading the content of file " + id, e);
        }
    }

    @Override
    public boolean delete(String id) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("DELETE FROM batch_files WHERE id = ?")) {
            s.setString(1, id);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw BatchSql.failed("Deleting file " + id, e);
        }
    }

    @Override
    public int expire(Set<String> inUse) {
        Instant now = clock.instant();
        List<String> expired = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT id FROM batch_files WHERE expires_at <= ?")) {
            s.setLong(1, now.toEpochMilli());
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    expired.add(r.getString(1));
                }
            }
        } catch (SQLException e) {
            throw BatchSql.failed("Looking for expired files", e);
        }
        int removed = 0;
        for (String id : expired) {
            if (!inUse.contains(id) && delete(id)) {
                removed++;
            }
        }
        return removed;
    }
}
