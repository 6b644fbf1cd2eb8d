package dev.baton.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** Clean-up of the temporary directories local clusters and the soak create. */
public final class TempDirs {

    private TempDirs() {
    }

    /** Deletes {@code dir} and everything under it; a directory left behind is harmless, so failures are ignored. */
    public static void deleteQuietly(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // nothing to do: the OS cleans its temp dir
        }
    }
}
