package dev.keypool.gateway;

/**
 * The channel has keys this request may use, but none has quota room for it now: the gateway holds the call back
 * before the provider would refuse it. Not a failure of the channel: its breaker does not hear of it.
 */
public final class ChannelAtQuotaException extends RuntimeException {

    public ChannelAtQuotaException(String channel) {
        super("Channel [" + channel + "] has no key with quota room for this request", null, false, false);
    }
}
