package dev.keypool.fault;

import java.util.Optional;

/**
 * The other gateway instances a fault acts on (design §9, §11): a fault injected through any instance is in force on
 * all of them until it ends or is removed, and a removal through any one ends it everywhere. {@link #ALONE}: this
 * instance is the only one.
 */
public interface FaultPeers {

    /** One instance: nothing to tell, ids counted here. */
    FaultPeers ALONE = new FaultPeers() {
        @Override
        public Optional<String> nextId() {
            return Optional.empty();
        }

        @Override
        public void added(Fault fault) {
        }

        @Override
        public void removed(Fault fault) {
        }
    };

    /** The faults these peers tell of ({@link Faults#heard}, {@link Faults#heardRemoved}); called once, at start. */
    default void attach(Faults faults) {
    }

    /** An id no instance has given, or empty: this instance counts its own. */
    Optional<String> nextId();

    /** Tells the other instances of a fault injected here. */
    void added(Fault fault);

    /** Tells the other instances that a fault ended here before its time (removed by an operator). */
    void removed(Fault fault);
}
