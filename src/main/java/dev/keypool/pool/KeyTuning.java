package dev.keypool.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import dev.keypool.quota.QuotaLimits;

/** How an operator's change of a key's weight and limits reads in its log line: {@code weight 1 -> 3, rpm none -> 100}. */
final class KeyTuning {

    private KeyTuning() {
    }

    /** The changed values only, comma separated; empty when nothing changes. */
    static String describe(int weightBefore, QuotaLimits before, int weightAfter, QuotaLimits after) {
        List<String> changes = new ArrayList<>();
        if (weightBefore != weightAfter) {
            changes.add("weight " + weightBefore + " -> " + weightAfter);
        }
        limit(changes, "rpm", before, after, QuotaLimits::rpm);
        limit(changes, "tpm", before, after, QuotaLimits::tpm);
        limit(changes, "rpd", before, after, QuotaLimits::rpd);
        limit(changes, "tpd", before, after, QuotaLimits::tpd);
        limit(changes, "tpmMonth", before, after, QuotaLimits::tpmMonth);
        return String.join(", ", changes);
    }

    private static void limit(List<String> changes, String name, QuotaLimits before, QuotaLimits after,
                              Function<QuotaLimits, Long> value) {
        Long from = value.apply(before);
        Long to = value.apply(after);
        if (!Objects.equals(from, to)) {
            changes.add(name + " " + (from == null ? "none" : from) + " -> " + (to == null ? "none" : to));
        }
    }
}
