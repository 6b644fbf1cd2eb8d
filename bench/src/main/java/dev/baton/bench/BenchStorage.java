package dev.baton.bench;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where {@code bench dispatch} keeps the broker's logs and the streams app's state. The bursts write
 * gigabytes; on this project's machine (ext4 on a virtual disk) their writeback later stalled single
 * appends for ~300 ms while the fixed-rate runs were measured (a JFR recording caught a 78-byte
 * marker write holding a partition's lock that long, and a stream thread's flush waiting on it). So
 * by default the run lives in memory when the machine offers a tmpfs with room to spare.
 */
final class BenchStorage {

    static final Path SHM = Path.of("/dev/shm");
    /** The run writes a few GiB (raw echo and Baton together); a tmpfs with less room is not used. */
    static final long MIN_FREE_BYTES = 8L << 30;

    private BenchStorage() {
    }

    /** The parent of the run's directory: {@code chosen} if given, else a roomy tmpfs, else the temp dir. */
    static Path parent(Path chosen) throws IOException {
        if (chosen != null) {
            return chosen;
        }
        if (Files.isDirectory(SHM) && Files.isWritable(SHM)) {
            FileStore store = Files.getFileStore(SHM);
            if ("tmpfs".equals(store.type()) && store.getUsableSpace() >= MIN_FREE_BYTES) {
                return SHM;
            }
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** "tmpfs", "ext4", ...: printed with the run so that runs on different storage are not compared. */
    static String type(Path dir) {
        try {
            return Files.getFileStore(dir).type();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
