package dev.baton.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.baton.schemas.registry.SchemaEvolution;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** The build's schema-evolution guard: every schema stays BACKWARD compatible with its last release. */
class SchemaEvolutionTest {

    private static final Path SOURCES = Path.of("src/main/avro");
    private static final Path RELEASED = Path.of("src/test/resources/released");
    private static final Path FIXTURE = Path.of("src/test/resources/evolution-fixture");

    @Test
    void shouldKeepEverySchemaBackwardCompatibleWithItsReleasedVersion() throws IOException {
        List<Path> schemas = eventSchemas(SOURCES);
        assertThat(schemas).hasSizeGreaterThanOrEqualTo(8);
        for (Path source : schemas) {
            Path released = RELEASED.resolve(SOURCES.relativize(source));
            assertThat(released).as("released copy of " + source + " (copy it there when first released)").exists();
            assertThat(SchemaEvolution.backwardIncompatibilities(parse(SOURCES, source), parse(RELEASED, released)))
                    .as(source + " must read data written with " + released).isEmpty();
        }
    }

    /**
     * FORWARD too: a process still on the released schemas (a rolling upgrade's older half) can read
     * what the new schemas write, because every field added since is optional with a default.
     */
    @Test
    void shouldLetEveryReleasedSchemaReadDataWrittenWithTheCurrentOne() throws IOException {
        for (Path source : eventSchemas(SOURCES)) {
            Path released = RELEASED.resolve(SOURCES.relativize(source));
            assertThat(SchemaEvolution.backwardIncompatibilities(parse(RELEASED, released), parse(SOURCES, source)))
                    .as(released + " must read data written with " + source).isEmpty();
        }
    }

    /** Avro's checker throws for a reader field that matches two writer fields; the guard (and every decoder) says incompatible. */
    @Test
    void shouldCallAReaderFieldThatAnswersToTwoWriterFieldsIncompatibleNotThrow() {
        Schema writer = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [{"name": "a", "type": "long"}, {"name": "b", "type": "long"}]}""");
        Schema reader = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [{"name": "a", "type": "long", "aliases": ["b"]}]}""");

        assertThat(SchemaEvolution.backwardIncompatibilities(reader, writer)).hasValueSatisfying(why -> assertThat(why).contains("matches multiple fields"));
    }

    @Test
    void shouldRejectAFieldAddedWithoutADefault() throws IOException {
        Schema released = parse(RELEASED, RELEASED.resolve("Outcome.avsc"));
        Schema evolved = parse(RELEASED, FIXTURE.resolve("Outcome.avsc"));
        assertThat(SchemaEvolution.backwardIncompatibilities(evolved, released))
                .hasValueSatisfying(why -> assertThat(why).contains("READER_FIELD_MISSING_DEFAULT", "tenant"));
    }

    /** Parses a schema after the shared named types it refers to, as the Avro plugin's imports do. */
    private static Schema parse(Path root, Path file) throws IOException {
        Schema.Parser parser = new Schema.Parser();
        for (String common : List.of("common/SiteRef", "common/Payload", "common/Failure", "common/RetryPolicy", "common/Timeouts",
                "Outcome")) {
            Path shared = root.resolve(common + ".avsc");
            // A shared type newer than the release (common/Failure) is absent from the released copies.
            if (Files.exists(shared) && !shared.getFileName().equals(file.getFileName())) {
                parser.parse(shared.toFile());
            }
        }
        return parser.parse(file.toFile());
    }

    private static List<Path> eventSchemas(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".avsc") && !p.getParent().endsWith("common")).sorted().collect(Collectors.toList());
        }
    }
}
