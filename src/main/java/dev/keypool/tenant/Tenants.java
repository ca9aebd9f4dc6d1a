package dev.keypool.tenant;

import java.util.List;
import java.util.Optional;

import dev.keypool.auth.Sha256;

/** The configured tenants; none means the gateway is open to every client (SPEC §7). */
public final class Tenants {

    private final List<Tenant> all;

    public Tenants(List<Tenant> tenants) {
        this.all = List.copyOf(tenants);
    }

    /** Whether clients must present a tenant's token. */
    public boolean enforced() {
        return !all.isEmpty();
    }

    public List<Tenant> all() {
        return all;
    }

    /** The tenant of this name, as a host application names it through the keypool component. */
    public Optional<Tenant> named(String name) {
        return all.stream().filter(tenant -> tenant.name().equals(name)).findFirst();
    }

    /**
     * The tenant whose token this is. The token is hashed once and compared with every tenant's hash in constant
     * time, all of them whatever matches, so that neither the time nor the position gives anything away.
     */
    public Optional<Tenant> authenticate(String token) {
        if (token == null || token.isEmpty()) {
            return Optional.empty();
        }
        byte[] presented = Sha256.of(token);
        Tenant found = null;
        for (Tenant tenant : all) {
            if (tenant.hasTokenHash(presented) && found == null) {
                found = tenant;
            }
        }
        return Optional.ofNullable(found);
    }
}
