package dev.baton.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildJvmIT {

    /** A child: loads a class from a jar (kafka-clients), says so, and lives until its input closes. */
    public static final class Child {
        public static void main(String[] args) throws IOException {
            System.out.println("ready with " + Time.SYSTEM.getClass().getName());
            System.out.flush();
            System.in.readAllBytes();
        }
    }

    @TempDir
    Path dir;

    private String before;

    @BeforeEach
    void archivesHere() {
        before = System.getProperty(ChildJvm.ARCHIVE_DIR_PROPERTY);
        System.setProperty(ChildJvm.ARCHIVE_DIR_PROPERTY, dir.toString());
    }

    @AfterEach
    void archivesAsBefore() {
        if (before == null) {
            System.clearProperty(ChildJvm.ARCHIVE_DIR_PROPERTY);
        } else {
            System.setProperty(ChildJvm.ARCHIVE_DIR_PROPERTY, before);
        }
    }

    @Test
    void theFirstChildOfAKindWritesTheArchiveTheNextOnesMap() throws Exception {
        String kind = "child-jvm-it";
        Path archive = ChildJvm.archive(kind, ChildJvm.classPath());
        Path earlier = dir.resolve(kind + "-0123456789abcdef.jsa"); // an earlier build's, refused by now
        Path otherKind = dir.resolve(kind + "-x-0123456789abcdef.jsa");
        Files.write(earlier, new byte[] {1});
        Files.write(otherKind, new byte[] {1});

        List<String> first = run(kind, List.of(), jvm -> await().atMost(Duration.ofSeconds(60)).until(() -> Files.isRegularFile(archive)));
        assertThat(first).anyMatch(l -> l.startsWith("ready with"));
        assertThat(Files.size(archive)).isPositive();
        assertThat(earlier).as("an earlier archive of the kind").doesNotExist();
        Files.delete(otherKind);
        assertThat(dir).isDirectoryNotContaining(p -> !p.equals(archive) && !p.getFileName().toString().equals("class-path")); // no partial file

        List<String> second = run(kind, List.of("-Xlog:class+load=info"), jvm -> { });
        assertThat(second).anyMatch(l -> l.startsWith("ready with"));
        assertThat(second).as("the jar's class comes from the archive")
                .anyMatch(l -> l.contains(" " + Time.class.getName() + " source: shared objects file (top)"));
    }

    @Test
    void aRebuiltJarNamesAnotherArchive() throws Exception {
        Path jar = Files.write(dir.resolve("lib.jar"), new byte[] {1, 2, 3});
        Path before = ChildJvm.archive("rebuilt", jar.toString());
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));
        assertThat(ChildJvm.archive("rebuilt", jar.toString())).isNotEqualTo(before);
        assertThat(ChildJvm.archive("other", jar.toString())).isNotEqualTo(ChildJvm.archive("rebuilt", jar.toString()));
    }

    @Test
    void withoutTheDirectoryNoArchiveIsUsedOrWritten() throws Exception {
        System.clearProperty(ChildJvm.ARCHIVE_DIR_PROPERTY);
        assertThat(ChildJvm.archive("any", ChildJvm.classPath())).isNull();

        List<String> output = run("child-jvm-it-off", List.of("-Xlog:class+load=info"), jvm -> { });
        assertThat(output).anyMatch(l -> l.startsWith("ready with"));
        assertThat(output).noneMatch(l -> l.contains("source: shared objects file (top)"));
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void aChildsClassPathHasItsDirectoriesAsJarsOfTheirContents() throws Exception {
        List<String> own = List.of(System.getProperty("java.class.path").split(File.pathSeparator));
        List<String> child = List.of(ChildJvm.classPath().split(File.pathSeparator));
        assertThat(child).hasSameSizeAs(own).noneMatch(e -> Files.isDirectory(Path.of(e)));
        for (int i = 0; i < own.size(); i++) {
            Path entry = Path.of(own.get(i));
            if (!Files.isDirectory(entry)) {
                assertThat(child.get(i)).isEqualTo(own.get(i));
                continue;
            }
            try (ZipFile jar = new ZipFile(child.get(i)); Stream<Path> files = Files.walk(entry)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    ZipEntry inJar = jar.getEntry(entry.relativize(file).toString().replace(File.separatorChar, '/'));
                    assertThat(inJar).as("%s in %s", file, child.get(i)).isNotNull();
                    assertThat(jar.getInputStream(inJar).readAllBytes()).isEqualTo(Files.readAllBytes(file));
                }
            }
        }
        assertThat(ChildJvm.classPath()).as("made once").isEqualTo(String.join(File.pathSeparator, child));
    }

    /** Starts a child, says it is ready once it prints so, runs {@code whileUp}, then ends it; its output. */
    private static List<String> run(String kind, List<String> options, ThrowingConsumer<ChildJvm> whileUp) throws Exception {
        ChildJvm jvm = ChildJvm.start(kind, options, Child.class.getName(), List.of());
        List<String> output = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(jvm.process().getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                output.add(line);
                if (line.startsWith("ready with")) {
                    jvm.ready();
                    whileUp.accept(jvm);
                    jvm.process().getOutputStream().close();
                }
            }
        } finally {
            jvm.process().destroyForcibly();
            assertThat(jvm.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        return output;
    }

    @FunctionalInterface
    private interface ThrowingConsumer<T> {
        void accept(T t) throws Exception;
    }
}
