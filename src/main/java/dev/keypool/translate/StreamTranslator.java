package dev.keypool.translate;

import java.util.List;

/**
 * Converts one provider stream into the client's format: fed each whole Server-Sent Event (with its blank line) in
 * order, it returns the events the client gets for it, in order, possibly none. Stateful, one per stream.
 */
public interface StreamTranslator {

    List<byte[]> translate(byte[] event);
}
