package dev.keypool.breaker;

/**
 * A failure that tells nothing about the channel it happened in (the gateway's own answer, such as a tenant's limit
 * met at the request's key): a channel's breaker ignores it in every state.
 */
public interface NeutralFailure {
}
