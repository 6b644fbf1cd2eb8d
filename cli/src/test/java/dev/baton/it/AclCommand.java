package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import dev.baton.cli.CliRun;
import dev.baton.embedded.EmbeddedKafka;

/**
 * {@code baton acl apply} as an operator runs it against a secured test broker: the admin's settings in a properties
 * file, one role grant per call. The security ITs grant their principals this way, not with hand-made ACLs, so they
 * test what the command writes.
 */
final class AclCommand {

    private final Path adminProperties;

    private AclCommand(Path adminProperties) {
        this.adminProperties = adminProperties;
    }

    /** Writes {@code kafka}'s admin settings to {@code admin.properties} in {@code dir}. */
    static AclCommand as(EmbeddedKafka kafka, Path dir) {
        Path file = dir.resolve("admin.properties");
        Properties p = new Properties();
        kafka.adminConfig().forEach((k, v) -> p.put(k, v.toString()));
        try (Writer w = Files.newBufferedWriter(file)) {
            p.store(w, "admin client settings for baton acl apply");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new AclCommand(file);
    }

    /** Runs {@code baton acl apply --config <admin.properties> <args>} and asserts that it succeeded. */
    void apply(String... args) {
        List<String> command = new ArrayList<>(List.of("acl", "apply", "--config", adminProperties.toString()));
        command.addAll(List.of(args));
        CliRun run = CliRun.of(command.toArray(String[]::new));
        assertThat(run.exit()).as(run.output()).isZero();
    }
}
