package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a {@code --config} properties file for a child process; deleted when this JVM exits. */
final class ProcessConfig {

    private ProcessConfig() {
    }

    static Path write(String role, String properties) {
        try {
            Path file = Files.createTempFile("baton-" + role + "-", ".properties");
            file.toFile().deleteOnExit();
            return Files.writeString(file, properties);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a config file for " + role, e);
        }
    }
}
