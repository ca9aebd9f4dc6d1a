package dev.keypool.admin;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Where the operators' runtime changes ({@link RuntimeChanges}) are kept: {@code state.dir/admin.json}
 * ({@link RuntimeChangesFile}), and with several gateway instances also where the others read them (design §11).
 */
public interface RuntimeChangesStore {

    /** The changes kept last; none when there are none or they cannot be read. */
    RuntimeChanges read();

    /** Keeps these changes, replacing those kept before. */
    void write(RuntimeChanges changes) throws IOException;

    /** The file in {@code state.dir} that keeps them across a restart. */
    Path path();
}
