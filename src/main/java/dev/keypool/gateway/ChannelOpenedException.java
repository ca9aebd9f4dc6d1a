package dev.keypool.gateway;

/** The channel's breaker opened while this request was between two attempts: no further call goes to it. */
public final class ChannelOpenedException extends RuntimeException {

    public ChannelOpenedException(String channel) {
        super("Channel [" + channel + "] opened its breaker during the request", null, false, false);
    }
}
