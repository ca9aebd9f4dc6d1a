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
 * The batches of this gateway alone, kept in memory and under {@code state.dir/batch/batches}: each as
 * {@code <id>.batch.json} (rewritten whole at every status change) and its {@link BatchJournal} as
 * {@code <id>.journal.jsonl}. Read back whole at startup, with no lease held, so that unfinished batches are claimed
 * and taken up again; a file that cannot be read is logged once and skipped. The journal of a batch over for longer
 * than the retention is deleted ({@link #expireResults}): its results are in the batch's output and error files.
 */
public final class DiskBatchStore implements BatchStore {

    private static final Logger LOG = LoggerFactory.getLogger(DiskBatchStore.class);

    private final Path dir;
    private final ObjectMapper mapper;
    private final Map<String, Batch> batches = new ConcurrentHashMap<>();
    private final Map<String, BatchJournal> journals = new ConcurrentHashMap<>();
    private final Leases leases = new Leases();

    public DiskBatchStore(Path dir, ObjectMapper mapper) {
        this.dir = dir;
        this.mapper = mapper;
        load();
    }

    private void load() {
        for (Path f : StateFiles.readBack(dir)) {
            if (f.getFileName().toString().endsWith(".batch.json")) {
                try {
                    Batch batch = Batch.fromStored(mapper.readTree(f.toFile()));
                    batches.put(batch.id(), batch);
                } catch (IOException | RuntimeException unreadable) {
                    LOG.warn("Batch file {} cannot be read and is skipped: {}", f, StateFiles.firstLine(unreadable));
                }
            }
        }
    }

    @Override
    public void create(Batch batch, Claimant claimant, Instant now) {
        write(batch.copy());
        if (claimant != null) {
            leases.claim(batch.id(), claimant.id(), now, claimant.leaseUntil(now));
        }
    }

    @Override
    public Optional<Batch> get(String id) {
        return Optional.ofNullable(id).map(batches::get).map(this::copy);
    }

    @Override
    public List<Batch> list(String owner) {
        return batches.values().stream().filter(b -> Objects.equals(b.owner(), owner))
                .sorted(Comparator.comparing(Batch::createdAt).reversed().thenComparing(Batch::id))
                .map(this::copy).toList();
    }

    @Override
    public synchronized boolean update(Batch batch, BatchStatus expected) {
        Batch stored = batches.get(batch.id());
        if (stored == null || stored.status() != expected) {
            return false;
        }
        Batch next = batch.copy();
        if (!stored.status().terminal()) {
            count(next);
        }
        write(next);
        if (next.status().terminal()) {
            BatchJournal journal = journals.remove(batch.id());
            if (journal != null) {
                journal.close();
            }
            leases.forget(batch.id());
        }
        return true;
    }

    @Override
    public boolean record(String batchId, BatchResult result) {
        return journal(batchId).record(result);
    }

    @Override
    public Set<Integer> done(String batchId) {
        return Set.copyOf(journal(batchId).results().keySet());
    }

    @Override
    public List<BatchResult> results(String batchId) {
        BatchJournal open = journals.get(batchId);
        if (open != null) {
            return inOrder(open);
        }
        // a batch over: its journal is read, not kept open
        try (BatchJournal closed = new BatchJournal(journalFile(batchId), mapper)) {
            return inOrder(closed);
        }
    }

    @Override
    public boolean claim(String batchId, Claimant claimant, Instant now) {
        Batch batch = batches.get(batchId);
        return batch != null && !batch.status().terminal()
                && leases.claim(batchId, claimant.id(), now, claimant.leaseUntil(now));
    }

    @Override
    public void renew(Claimant claimant, Instant now) {
        leases.renew(claimant.id(), claimant.leaseUntil(now));
    }

    @Override
    public int release(Claimant claimant) {
        return leases.release(claimant.id());
    }

    @Override
    public List<String> claimable(Claimant claimant, Instant now) {
        return batches.values().stream()
                .filter(b -> !b.status().terminal() && !b.fromInbox() && leases.claimable(b.id(), claimant.id(), now))
                .sorted(Comparator.comparing(Batch::createdAt)).map(Batch::id).toList();
    }

    @Override
    public Set<String> inputsInUse() {
        return batches.values().stream().filter(b -> !b.status().terminal()).map(Batch::inputFileId)
                .collect(Collectors.toSet());
    }

    @Override
    public int expireResults(Instant now, Duration retention) {
        int removed = 0;
        for (Batch batch : batches.values()) {
            Instant ended = batch.endedAt();
            if (ended != null && !now.isBefore(ended.plus(retention)) && !journals.containsKey(batch.id())) {
                try {
                    if (Files.deleteIfExists(journalFile(batch.id()))) {
                        removed++;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot delete the journal of " + batch.id(), e);
                }
            }
        }
        return removed;
    }

    @Override
    public void close() {
        journals.values().forEach(BatchJournal::close);
        journals.clear();
    }

    /** What {@link #get} hands out: a copy with the journal's counts while it runs, and its lease holder. */
    private Batch copy(Batch stored) {
        Batch copy = stored.copy();
        if (!copy.status().terminal()) {
            count(copy);
        }
        copy.claimedBy(leases.holder(copy.id()));
        return copy;
    }

    private void count(Batch batch) {
        BatchJournal journal = journal(batch.id());
        batch.counts(journal.ok(), journal.results().size() - journal.ok());
    }

    private void write(Batch batch) {
        try {
            StateFiles.replace(dir.resolve(batch.id() + ".batch.json"), mapper.writeValueAsBytes(batch.toStored(mapper)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        batches.put(batch.id(), batch);
    }

    /** The journal of a batch, opened on first use and kept open until the batch is over. */
    private BatchJournal journal(String batchId) {
        return journals.computeIfAbsent(batchId, id -> new BatchJournal(journalFile(id), mapper));
    }

    private Path journalFile(String batchId) {
        return dir.resolve(batchId + ".journal.jsonl");
    }

    private static List<BatchResult> inOrder(BatchJournal journal) {
        return journal.results().values().stream().sorted(Comparator.comparingInt(BatchResult::line)).toList();
    }
}
