package dev.keypool.batch;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Ids in OpenAI's shapes: {@code file-…}, {@code batch_…}, {@code batch_req_…}, {@code task_…}. */
public final class Ids {

    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {
    }

    /** {@code prefix} followed by 24 random hex digits. */
    public static String next(String prefix) {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return prefix + HexFormat.of().formatHex(bytes);
    }
}
