package dev.keypool.quota;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keypool.state.StateFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The day and month quota counts of every key, kept in one JSON file so that they survive a restart (design §6):
 * <pre>{"version":1,"keys":{"zhipu/3f2a…":{"rpd":{"periodStart":"2026-11-30","amount":9}}}}</pre>
 * Keys are named by channel and fingerprint ({@link #keyId}), never by their secret. The file is replaced atomically
 * and durably ({@link StateFiles}), so a crash mid-write leaves the previous version.
 * A file that cannot be read is reported in one WARN line and treated as empty: lost counts are better than a
 * gateway that does not start. Writers must not overlap; the owner serialises them.
 */
public final class QuotaStateFile {

    /** The file's name inside {@code state.dir}. */
    public static final String NAME = "quota.json";

    private static final Logger LOG = LoggerFactory.getLogger(QuotaStateFile.class);
    private static final int VERSION = 1;

    private final Path file;
    private final ObjectMapper mapper = new ObjectMapper();

    /** @param dir the state directory; created at the first write */
    public QuotaStateFile(Path dir) {
        this.file = dir.resolve(NAME);
    }

    public Path path() {
        return file;
    }

    /** How the file names a key: its channel and fingerprint. */
    public static String keyId(String channel, String fingerprint) {
        return channel + "/" + fingerprint;
    }

    /**
     * Replaces the file with these counts, by key id ({@link #keyId}).
     *
     * @throws IOException when the directory or the file cannot be written; the previous file is then untouched
     */
    public void write(Map<String, Map<KeyQuota.Window, KeyQuota.PeriodCount>> counts) throws IOException {
        ObjectNode root = mapper.createObjectNode();
        root.put("version", VERSION);
        ObjectNode keys = root.putObject("keys");
        counts.forEach((id, windows) -> {
            ObjectNode key = keys.putObject(id);
            windows.forEach((window, count) -> key.putObject(window.configName())
                    .put("periodStart", count.periodStart().toString())
                    .put("amount", count.amount()));
        });
        StateFiles.replace(file, mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    }

    /**
     * The counts saved last, by key id; empty when there is no file, and when it cannot be read or parsed (then
     * one WARN line says why). Entries it does not understand (an unknown window, a bad date) are skipped.
     */
    public Map<String, Map<KeyQuota.Window, KeyQuota.PeriodCount>> read() {
        Map<String, Map<KeyQuota.Window, KeyQuota.PeriodCount>> counts = new LinkedHashMap<>();
        JsonNode root;
        try {
            root = mapper.readTree(Files.readAllBytes(file));
        } catch (NoSuchFileException first) {
            return counts;
        } catch (IOException | RuntimeException unreadable) {
            LOG.warn("Quota state {} ignored, day and month counts start at zero: {}", file, firstLine(unreadable));
            return counts;
        }
        if (root == null || !root.path("keys").isObject() || root.path("version").asInt() != VERSION) {
            LOG.warn("Quota state {} ignored, day and month counts start at zero: not a version {} quota state file",
                    file, VERSION);
            return counts;
        }
        for (Iterator<Map.Entry<String, JsonNode>> keys = root.path("keys").fields(); keys.hasNext(); ) {
            Map.Entry<String, JsonNode> key = keys.next();
            Map<KeyQuota.Window, KeyQuota.PeriodCount> windows = new EnumMap<>(KeyQuota.Window.class);
            for (KeyQuota.Window window : KeyQuota.Window.values()) {
                JsonNode saved = key.getValue().path(window.configName());
                if (saved.path("periodStart").isTextual() && saved.path("amount").canConvertToLong()) {
                    try {
                        windows.put(window, new KeyQuota.PeriodCount(
                                LocalDate.parse(saved.path("periodStart").asText()), saved.path("amount").asLong()));
                    } catch (RuntimeException badDate) {
                        // skipped: one bad entry costs its own count only
                    }
                }
            }
            if (!windows.isEmpty()) {
                counts.put(key.getKey(), windows);
            }
        }
        return counts;
    }

    /** Jackson's messages run over several lines (with the source excerpt); the log gets one. */
    private static String firstLine(Exception e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + message.lines().findFirst().orElse("");
    }
}
