package dev.keypool.breaker;

/**
 * The probe count of one HALF_OPEN period: closes at {@code needed} successes and gives up as soon as the
 * probes still to come could no longer reach that number, instead of waiting for all of them.
 */
final class HalfOpenTrial {

    enum Verdict { UNDECIDED, PASSED, FAILED }

    private final int allowed;
    private final int needed;
    private int successes;
    private int failures;

    HalfOpenTrial(int allowed, int needed) {
        this.allowed = allowed;
        this.needed = needed;
    }

    Verdict success() {
        successes++;
        return successes >= needed ? Verdict.PASSED : Verdict.UNDECIDED;
    }

    Verdict failure() {
        failures++;
        // with allowed - needed failures the remaining probes can still all succeed; one more and they cannot
        return failures > allowed - needed ? Verdict.FAILED : Verdict.UNDECIDED;
    }

    /**
     * Takes the counts of all the instances probing this period together (this one's included) instead of its own,
     * and judges them as {@link #success} and {@link #failure} do.
     */
    Verdict counted(int allSuccesses, int allFailures) {
        successes = Math.max(successes, allSuccesses);
        failures = Math.max(failures, allFailures);
        if (successes >= needed) {
            return Verdict.PASSED;
        }
        return failures > allowed - needed ? Verdict.FAILED : Verdict.UNDECIDED;
    }

    int successes() {
        return successes;
    }

    int probes() {
        return successes + failures;
    }

    int allowed() {
        return allowed;
    }

    int needed() {
        return needed;
    }
}
