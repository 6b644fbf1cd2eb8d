package dev.baton.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** Clean-up of the temporary directories local clusters, the soak and tests create. */
public final class TempDirs {

    /** This JVM's directory for {@link #create}, made on first use and deleted when the JVM exits. */
    private static Path root;

    private TempDirs() {
    }

    /**
     * A new directory named {@code prefix} and a random suffix, deleted with everything under it when this JVM exits: for
     * a test's state dirs, which a streams app still holds open until the test ends (a test JVM that ran the build's ITs
     * left ~300 MB of them in the system's temporary directory each time).
     */
    public static synchronized Path create(String prefix) throws IOException {
        if (root == null) {
            Path made = Files.createTempDirectory("baton-tests-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(made), "baton-tests-temp-cleanup"));
            root = made;
        }
        return Files.createTempDirectory(root, prefix);
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
