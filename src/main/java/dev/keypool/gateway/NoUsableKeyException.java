package dev.keypool.gateway;

/** The channel has no key left that this request may use: all cooling, disabled, or already tried. */
public final class NoUsableKeyException extends RuntimeException {

    private final String channel;

    public NoUsableKeyException(String channel) {
        super("Channel [" + channel + "] has no usable key left for this request", null, false, false);
        this.channel = channel;
    }

    public String channel() {
        return channel;
    }
}
