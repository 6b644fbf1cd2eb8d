package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import dev.baton.worker.ActivityHandler;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code baton worker --handler} loads a user's classes from {@code --classpath} and the lib directory. */
class HandlerClasspathTest {

    private static final String HANDLER = "com.example.Shout";

    @TempDir
    static Path work;

    /** {@value #HANDLER} compiled at test time, so Baton's own class path cannot hold it. */
    private static Path classes;
    private static Path jar;

    @BeforeAll
    static void compileAUserHandler() throws IOException {
        Path src = work.resolve("src/com/example/Shout.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, """
                package com.example;
                public class Shout implements dev.baton.worker.ActivityHandler {
                    public byte[] handle(dev.baton.worker.ActivityContext ctx, byte[] input) {
                        return new String(input, java.nio.charset.StandardCharsets.UTF_8).toUpperCase().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    }
                }
                """);
        Path notAHandler = work.resolve("src/com/example/Plain.java");
        Files.writeString(notAHandler, "package com.example; public class Plain {}\n");
        classes = work.resolve("classes");
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int exit = javac.run(null, null, null, "-d", classes.toString(), "-classpath", System.getProperty("java.class.path"),
                src.toString(), notAHandler.toString());
        assertThat(exit).as("javac exit code").isZero();
        jar = work.resolve("jars/shout.jar");
        writeJar(classes, jar);
    }

    @Test
    void shouldNotFindTheUserClassWithoutAClasspath() {
        assertThatThrownBy(() -> Class.forName(HANDLER)).isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void shouldLoadAHandlerFromAJarInTheLibDirectory() throws Exception {
        HandlerClasspath cp = HandlerClasspath.of(List.of(), jar.getParent());
        assertThat(cp.entries()).containsExactly(jar.toAbsolutePath());
        assertShouts(cp);
    }

    @Test
    void shouldLoadAHandlerFromAClassDirectoryOnTheClasspath() throws Exception {
        assertShouts(HandlerClasspath.of(List.of(classes.toString()), work.resolve("no-such-lib")));
    }

    @Test
    void shouldReadWildcardsAndSeparatorsAsJavaDoes() {
        String value = jar.getParent() + File.separator + "*" + File.pathSeparator + classes;
        assertThat(HandlerClasspath.of(List.of(value), null).entries()).containsExactly(jar.toAbsolutePath(), classes.toAbsolutePath());
    }

    @Test
    void shouldNameTheSearchedEntriesWhenTheClassIsMissing() throws IOException {
        HandlerClasspath cp = HandlerClasspath.of(List.of(jar.toString()), null);
        try (URLClassLoader loader = cp.loader(getClass().getClassLoader())) {
            assertThatThrownBy(() -> cp.newHandler("com.example.Missing", loader))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("com.example.Missing not found").hasMessageContaining(jar.toAbsolutePath().toString());
        }
    }

    @Test
    void shouldRefuseAClassThatIsNoHandler() throws IOException {
        HandlerClasspath cp = HandlerClasspath.of(List.of(jar.toString()), null);
        try (URLClassLoader loader = cp.loader(getClass().getClassLoader())) {
            assertThatThrownBy(() -> cp.newHandler("com.example.Plain", loader))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must implement " + ActivityHandler.class.getName());
        }
    }

    @Test
    void shouldRefuseAClasspathEntryThatDoesNotExist() {
        assertThatThrownBy(() -> HandlerClasspath.of(List.of(work.resolve("typo.jar").toString()), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("typo.jar does not exist");
    }

    @Test
    void shouldBuildTheWorkersHandlersFromItsOptions() throws Exception {
        WorkerCommand command = new WorkerCommand();
        new CommandLine(command).parseArgs("--queue", "q", "--handler", "shout=" + HANDLER, "--classpath", jar.toString(),
                "--lib-dir", work.resolve("no-such-lib").toString());
        HandlerClasspath cp = HandlerClasspath.of(command.classpath, command.libDir);
        try (URLClassLoader loader = cp.loader(getClass().getClassLoader())) {
            Map<String, ActivityHandler> handlers = command.userHandlers(cp, loader);
            assertThat(handlers).containsOnlyKeys("shout");
            assertThat(handlers.get("shout").handle(null, "hi".getBytes(StandardCharsets.UTF_8))).asString(StandardCharsets.UTF_8).isEqualTo("HI");
        }
    }

    @Test
    void shouldAnswerAMissingHandlerClassAsAUsageError() {
        CliRun run = CliRun.of("worker", "--queue", "q", "--handler", "shout=com.example.Missing", "--lib-dir",
                work.resolve("no-such-lib").toString(), "--bootstrap-servers", "127.0.0.1:1");
        assertThat(run.exit()).isEqualTo(2);
    }

    private static void assertShouts(HandlerClasspath cp) throws Exception {
        try (URLClassLoader loader = cp.loader(HandlerClasspathTest.class.getClassLoader())) {
            ActivityHandler handler = cp.newHandler(HANDLER, loader);
            assertThat(handler.getClass().getClassLoader()).isSameAs(loader);
            assertThat(handler.handle(null, "hello".getBytes(StandardCharsets.UTF_8))).asString(StandardCharsets.UTF_8).isEqualTo("HELLO");
        }
    }

    private static void writeJar(Path classDir, Path target) throws IOException {
        Files.createDirectories(target.getParent());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(target)); Stream<Path> files = Files.walk(classDir)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classDir.relativize(f).toString().replace(File.separatorChar, '/')));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
    }
}
