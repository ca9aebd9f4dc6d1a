package dev.keypool.admin;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The gateway instances that share a Redis, as one of them sees them (design §11): who is there (a heartbeat each),
 * and a reload asked of all of them. {@link #alone}: one instance, which is the whole cluster.
 */
public interface Cluster {

    /** One instance's answer to a reload: its HTTP status and JSON body, or {@code status} 0 when it gave none in time. */
    record ReloadReply(String instance, int status, String body) {
    }

    /** This instance's id ({@code keypool.instance-id}). */
    String instance();

    /** Whether other instances can be there (a Redis is configured). */
    boolean shared();

    /** Writes this instance's heartbeat and reads the others'; the cluster-heartbeat route calls it. */
    void heartbeat();

    /** Every instance known, this one first, the others by id; gone ones too, for a while. */
    List<Member> members();

    /**
     * Asks every other live instance to reload its keypool.yaml and waits up to {@code wait} for their answers: one
     * reply per instance asked, {@code status} 0 for one that did not answer in time.
     */
    List<ReloadReply> reloadOthers(Duration wait);

    /** How this instance reloads when another one asks ({@link #reloadOthers}). */
    void answerReloads(Supplier<ReloadReply> reload);

    /** One instance alone: it is every member, and there is nobody else to ask. */
    static Cluster alone(Supplier<Member> self) {
        Objects.requireNonNull(self, "self");
        return new Cluster() {
            @Override
            public String instance() {
                return self.get().id();
            }

            @Override
            public boolean shared() {
                return false;
            }

            @Override
            public void heartbeat() {
            }

            @Override
            public List<Member> members() {
                return List.of(self.get());
            }

            @Override
            public List<ReloadReply> reloadOthers(Duration wait) {
                return List.of();
            }

            @Override
            public void answerReloads(Supplier<ReloadReply> reload) {
            }
        };
    }
}
