package dev.keypool.camel.http;

/**
 * A body read as it arrives that tells its reader on the event loop when more has come, so that a reader there never
 * waits for it ({@code StreamRelay}'s first event).
 */
public interface ArrivingBytes {

    /**
     * Runs {@code cameMore} once, on the event loop the body arrives on, when something has come that no read has taken
     * (at once if it has): bytes, the end or a failure. Called on that event loop.
     *
     * @return false when nothing more will come (the end or a failure was taken already): nothing is run
     */
    boolean whenMoreArrives(Runnable cameMore);
}
