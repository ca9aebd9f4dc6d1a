package dev.keypool.admin;

/** A tenant change that cannot be made as asked: the name is taken, or other instances keep changing the tenant. */
public final class TenantConflictException extends RuntimeException {

    public TenantConflictException(String message) {
        super(message);
    }
}
