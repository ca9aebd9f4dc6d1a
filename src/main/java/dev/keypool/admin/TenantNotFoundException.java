package dev.keypool.admin;

/** No tenant of this name is in force (never was, deleted, or removed from keypool.yaml). */
public final class TenantNotFoundException extends RuntimeException {

    public TenantNotFoundException(String name) {
        super("No tenant '" + name + "'");
    }
}
