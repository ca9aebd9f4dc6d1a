package dev.keypool.batch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.state.StateFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batches of this gateway, kept in memory and under {@code state.dir/batch/batches}: each as {@code <id>.json}
 * (rewritten whole at every status change) and its {@link BatchJournal} as {@code <id>.journal.jsonl}. Read back
 * whole at startup, so that unfinished batches can be taken up again; a file that cannot be read is logged once and
 * skipped. The journal of a batch over for longer than the retention is deleted ({@link #expireJournals}): its
 * results are in the batch's output and error files.
 */
public final class BatchStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BatchStore.class);

    private final Path dir;
    private final ObjectMapper mapper;
    private final Map<String, Batch> batches = new ConcurrentHashMap<>();
    private final Map<String, BatchJournal> journals = new ConcurrentHashMap<>();
    private List<Batch> leftOver;

    public BatchStore(Path dir, ObjectMapper mapper) {
        this.dir = dir;
        this.mapper = mapper;
        load();
        leftOver = batches.values().stream().filter(b -> !b.status().terminal() && !b.fromInbox()).toList();
    }

    private void load() {
        for (Path f : StateFiles.readBack(dir)) {
            if (f.getFileName().toString().endsWith(".batch.json")) {
                try {
                    Batch batch = Batch.fromStored(mapper.readTree(f.toFile()));
                    batches.put(batch.id(), batch);
                    if (!batch.status().terminal()) {
                        batch.recount(journal(batch));
                    }
                } catch (IOException | RuntimeException unreadable) {
                    LOG.warn("Batch file {} cannot be read and is skipped: {}", f, StateFiles.firstLine(unreadable));
                }
            }
        }
    }

    /** Writes the batch as it is now (new, or after a change). */
    public void save(Batch batch) {
        batches.put(batch.id(), batch);
        try {
            StateFiles.replace(dir.resolve(batch.id() + ".batch.json"), mapper.writeValueAsBytes(batch.toStored(mapper)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Optional<Batch> get(String id) {
        return Optional.ofNullable(id).map(batches::get);
    }

    /** The batches of {@code owner} (all, without tenants), newest first. */
    public List<Batch> list(String owner) {
        return batches.values().stream().filter(b -> Objects.equals(b.owner(), owner))
                .sorted(Comparator.comparing(Batch::createdAt).reversed()
                        .thenComparing(Batch::id))
                .toList();
    }

    /**
     * The batches that were not over (completed, failed, expired or cancelled) when the gateway last stopped, as read
     * at startup; given once, so that each is taken up again once (batches created since are running already). Not
     * the inbox's: their files come back by themselves.
     */
    public synchronized List<Batch> leftOver() {
        List<Batch> left = leftOver;
        leftOver = List.of();
        return left;
    }

    /** The input files of the batches not over yet: they must stay while their batch may still read them. */
    public Set<String> inputsInUse() {
        return batches.values().stream().filter(b -> !b.status().terminal()).map(Batch::inputFileId)
                .collect(Collectors.toSet());
    }

    /** Deletes the journals of batches over for {@code retention} or longer by {@code now}; returns how many. */
    public int expireJournals(Instant now, Duration retention) {
        int removed = 0;
        for (Batch batch : batches.values()) {
            Instant ended = batch.endedAt();
            if (ended != null && !now.isBefore(ended.plus(retention)) && !journals.containsKey(batch.id())) {
                try {
                    if (Files.deleteIfExists(dir.resolve(batch.id() + ".journal.jsonl"))) {
                        removed++;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot delete the journal of " + batch.id(), e);
                }
            }
        }
        return removed;
    }

    /** The journal of a batch, opened on first use and kept open until the batch is over. */
    public BatchJournal journal(Batch batch) {
        return journals.computeIfAbsent(batch.id(), id -> new BatchJournal(dir.resolve(id + ".journal.jsonl"), mapper));
    }

    /** The batch is over: its journal is closed (and kept, with the output and error files). */
    public void closeJournal(Batch batch) {
        BatchJournal journal = journals.remove(batch.id());
        if (journal != null) {
            journal.close();
        }
    }

    @Override
    public void close() {
        journals.values().forEach(BatchJournal::close);
        journals.clear();
    }
}
