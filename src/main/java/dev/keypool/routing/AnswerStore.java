package dev.keypool.routing;

import java.time.Duration;
import java.util.Optional;

/**
 * Where the response cache keeps its answers, by key (a hash: never a prompt, key or token in the clear): in this
 * process ({@link LocalAnswerStore}), or shared by the instances through Redis.
 */
public interface AnswerStore {

    Optional<CachedAnswer> get(String key);

    /** Keeps {@code answer} for {@code keepFor}, or less when the store must make room. */
    void put(String key, CachedAnswer answer, Duration keepFor);

    /** No second store: the local one alone. */
    AnswerStore NONE = new AnswerStore() {
        @Override
        public Optional<CachedAnswer> get(String key) {
            return Optional.empty();
        }

        @Override
        public void put(String key, CachedAnswer answer, Duration keepFor) {
        }
    };
}
