package dev.keypool.pool;

import java.util.List;

/**
 * Which keys of a channel one request may use (design §7): a tenant's own keys (those with its {@code tenant:}) and,
 * when it may borrow, the shared keys (those with none). A request without a tenant uses the shared keys only.
 * Keys of other tenants are never in scope.
 */
public record KeyScope(String tenant, boolean borrow) {

    /** A request of no tenant: the shared keys. */
    public static final KeyScope SHARED = new KeyScope(null, true);

    /** Whether the request may use this key at all. */
    public boolean admits(ApiKey key) {
        return isOwn(key) || borrow && key.tenant() == null;
    }

    /** Whether the key is the tenant's own rather than a shared (borrowed) one. */
    public boolean isOwn(ApiKey key) {
        return tenant != null && tenant.equals(key.tenant());
    }

    /** The groups of keys in the order they are tried: own keys first, then the shared keys when it may borrow. */
    List<KeyScope> tiers() {
        if (tenant == null) {
            return List.of(this);
        }
        return borrow ? List.of(new KeyScope(tenant, false), new KeyScope(null, true)) : List.of(this);
    }
}
