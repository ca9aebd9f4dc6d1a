package dev.keypool.admin;

import java.util.List;

/**
 * Where the tenants managed at runtime are kept (design §9): the control plane's database, which every instance
 * sharing it reads. Each write also moves a revision all of them poll, so that a change is noticed everywhere.
 * Failures are {@link IllegalStateException}s whose message quotes no credential.
 */
public interface TenantStore {

    /** Every stored tenant, deleted ones included, oldest first. */
    List<TenantRecord> all();

    /** A number that changes with every write, by any instance. */
    long revision();

    /**
     * Writes {@code record} if the stored one is still at {@code expectedVersion} (0: there must be none), with its
     * version one higher; false when another write came first.
     */
    boolean put(TenantRecord record, long expectedVersion);
}
