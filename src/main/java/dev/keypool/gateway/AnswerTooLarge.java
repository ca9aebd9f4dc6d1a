package dev.keypool.gateway;

import java.io.IOException;

/**
 * A provider's answer, or one event of its stream, over the gateway's limit: the attempt fails as a provider error
 * (an IOException, as a broken connection does), counted against its key, and the request moves on to another key
 * or channel while nothing has reached the client. The message names the limit, never the content.
 */
public final class AnswerTooLarge extends IOException {

    public AnswerTooLarge(String what, long limitBytes) {
        super(what + " over " + limitBytes + " bytes");
    }
}
