package dev.keypool.gateway;

import java.nio.ByteBuffer;

/**
 * Finds a byte sequence in a body in time linear in the body's length, whatever the bytes (Knuth-Morris-Pratt): a
 * plain search compares the whole needle again at each position, and a body made of near-matches of a long multipart
 * boundary costs it length x boundary comparisons. Hand-written because the multipart parsers at hand (Vert.x's,
 * Netty's) decode the parts into copies and keep no offsets, and the gateway forwards the body as it came.
 */
final class ByteSearch {

    private final byte[] needle;
    /** For each prefix of the needle, the length of its longest proper prefix that is also its suffix. */
    private final int[] fallback;

    ByteSearch(byte[] needle) {
        if (needle.length == 0) {
            throw new IllegalArgumentException("empty needle");
        }
        this.needle = needle;
        this.fallback = new int[needle.length];
        for (int i = 1, k = 0; i < needle.length; i++) {
            while (k > 0 && needle[i] != needle[k]) {
                k = fallback[k - 1];
            }
            if (needle[i] == needle[k]) {
                k++;
            }
            fallback[i] = k;
        }
    }

    /** The first index at or after {@code from} where the needle starts in {@code body}; -1 when it does not. */
    int in(byte[] body, int from) {
        return in(ByteBuffer.wrap(body), from);
    }

    /** The same in a buffer (on the heap, or a file mapped into memory), from its index 0 to its limit. */
    int in(ByteBuffer body, int from) {
        for (int i = Math.max(0, from), k = 0; i < body.limit(); i++) {
            byte b = body.get(i);
            while (k > 0 && b != needle[k]) {
                k = fallback[k - 1];
            }
            if (b == needle[k]) {
                k++;
                if (k == needle.length) {
                    return i - needle.length + 1;
                }
            }
        }
        return -1;
    }
}
