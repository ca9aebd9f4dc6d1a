package dev.keypool.quota;

/**
 * A take from another shared count that goes out with a key's reservation, in the same call to the shared count and
 * all or nothing: a tenant's admission with its request's first key (design §11: one round trip per request). A ledger
 * that cannot carry it leaves it undecided; the key's side only carries it and never decides it: its owner does.
 */
public interface CompanionTake {

    /** Whether it has been decided, with a key's reservation or alone. */
    boolean decided();

    /** Whether it was decided and refused: no key may be reserved for its request. */
    boolean refused();
}
