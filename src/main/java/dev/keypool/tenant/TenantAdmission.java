package dev.keypool.tenant;

import java.util.function.Supplier;

import dev.keypool.quota.CompanionTake;

/**
 * One request's admission by its tenant's limits ({@link TenantLimits#admission}): decided at once, or pending until
 * the request's first key reservation carries it to the shared count, or it is decided alone. Used by one request
 * at a time.
 */
public class TenantAdmission implements CompanionTake {

    private final Supplier<TenantLimits.Decision> alone;
    private volatile TenantLimits.Decision decision;

    /** @param alone decides it by a call of its own, when no key's reservation carried it */
    protected TenantAdmission(Supplier<TenantLimits.Decision> alone) {
        this.alone = alone;
    }

    /** An admission decided already. */
    public static TenantAdmission decided(TenantLimits.Decision decision) {
        TenantAdmission admission = new TenantAdmission(() -> decision);
        admission.decide(decision);
        return admission;
    }

    /** What was decided; null while it is pending. */
    public TenantLimits.Decision decision() {
        return decision;
    }

    /** Records what the shared count decided with a key's reservation. */
    protected void decide(TenantLimits.Decision decided) {
        this.decision = decided;
    }

    @Override
    public boolean decided() {
        return decision != null;
    }

    @Override
    public boolean refused() {
        return decision instanceof TenantLimits.Refused;
    }

    /** Decides it on its own when it is not yet decided (a call of its own); whether it is admitted. */
    public boolean decideAlone() {
        if (decision == null) {
            decision = alone.get();
        }
        return decision instanceof TenantLimits.Admitted;
    }
}
