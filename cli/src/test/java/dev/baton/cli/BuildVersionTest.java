package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** {@code baton --version} prints the version the build was made from, not a string kept by hand. */
class BuildVersionTest {

    @Test
    void shouldPrintTheVersionOfThePomItWasBuiltFrom() throws IOException {
        CliRun run = CliRun.of("--version");

        assertThat(run.exit()).isZero();
        assertThat(run.output().lines().findFirst()).hasValue("baton " + pomVersion());
    }

    @Test
    void shouldPrintTheKafkaClientVersionFoundAtRunTime() {
        assertThat(BuildVersion.kafkaClients()).matches("\\d+\\.\\d+\\.\\d+.*");
        assertThat(CliRun.of("--version").output()).contains("Kafka clients " + BuildVersion.kafkaClients() + ", Java ");
    }

    /** The cli module's version: its parent's, as every module inherits it (surefire runs in the module directory). */
    private static String pomVersion() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher parent = Pattern.compile("<parent>.*?<version>([^<]+)</version>.*?</parent>", Pattern.DOTALL).matcher(pom);
        assertThat(parent.find()).as("cli/pom.xml names its parent's version").isTrue();
        return parent.group(1);
    }
}
