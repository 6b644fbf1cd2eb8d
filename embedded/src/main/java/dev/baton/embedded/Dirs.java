package dev.baton.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Deleting the directories this module makes (brokers' data, child JVMs' temporary files). */
final class Dirs {

    private static final Logger log = LoggerFactory.getLogger(Dirs.class);

    private Dirs() {
    }

    /** Deletes {@code dir} and everything under it, if it exists; what cannot be deleted is logged and left. */
    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            log.warn("could not delete {}: {}", dir, e.toString());
        }
    }
}
