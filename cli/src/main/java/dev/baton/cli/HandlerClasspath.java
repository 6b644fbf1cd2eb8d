package dev.baton.cli;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import dev.baton.worker.ActivityHandler;

/**
 * Where {@code baton worker --handler} finds a user's handler classes: the {@code --classpath}
 * entries, then every jar of the lib directory. {@code java -jar} ignores {@code -cp}, so the
 * worker loads them through a class loader of its own.
 *
 * <p>An entry is a jar, a directory of classes, or {@code dir/*} for every jar in {@code dir}
 * (as {@code java -cp} reads it); one option value may hold several, separated by
 * {@link File#pathSeparator}. The loader asks Baton's own class loader first, so a handler sees the
 * same {@link ActivityHandler} type, Kafka and Avro as Baton does; a user's jar cannot replace them.
 *
 * <p>A lib directory that does not exist is no error (most workers have none); a {@code --classpath}
 * entry that does not exist is, since it is a typo more often than not.
 */
final class HandlerClasspath {

    private final List<Path> entries;

    private HandlerClasspath(List<Path> entries) {
        this.entries = List.copyOf(entries);
    }

    /**
     * @param classpath the {@code --classpath} values, each one or more entries
     * @param libDir    a directory whose jars are added after them; ignored if absent
     * @throws IllegalArgumentException if a {@code --classpath} entry does not exist
     */
    static HandlerClasspath of(List<String> classpath, Path libDir) {
        List<Path> out = new ArrayList<>();
        for (String value : classpath) {
            for (String entry : value.split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    out.addAll(expand(entry.strip()));
                }
            }
        }
        if (libDir != null && Files.isDirectory(libDir)) {
            out.addAll(jarsIn(libDir));
        }
        return new HandlerClasspath(out);
    }

    /** The jars and class directories, in search order. */
    List<Path> entries() {
        return entries;
    }

    /** A loader over {@link #entries()} that asks {@code parent} first; the caller closes it. */
    URLClassLoader loader(ClassLoader parent) {
        URL[] urls = new URL[entries.size()];
        for (int i = 0; i < urls.length; i++) {
            try {
                urls[i] = entries.get(i).toUri().toURL();
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("class path entry is not a valid URL: " + entries.get(i), e);
            }
        }
        return new URLClassLoader("baton-handlers", urls, parent);
    }

    /**
     * Instantiates a handler class through {@code loader}.
     *
     * @throws IllegalArgumentException if the class is not found (the message names the searched
     *                                  entries), is no {@link ActivityHandler}, or has no public no-arg constructor
     */
    ActivityHandler newHandler(String className, ClassLoader loader) {
        Class<?> type;
        try {
            type = Class.forName(className, true, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("handler class " + className + " not found on Baton's class path nor in "
                    + (entries.isEmpty() ? "any --classpath entry or lib directory (none given or found)" : entries), e);
        }
        if (!ActivityHandler.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("handler class " + className + " must implement " + ActivityHandler.class.getName()
                    + ", it does not (loaded from " + type.getProtectionDomain().getCodeSource() + ")");
        }
        try {
            return (ActivityHandler) type.getDeclaredConstructor().newInstance();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("handler class " + className + " needs a public no-arg constructor", e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("handler class " + className + " could not be instantiated: " + e, e);
        }
    }

    private static List<Path> expand(String entry) {
        if (entry.equals("*") || entry.endsWith(File.separator + "*")) {
            Path dir = Path.of(entry.substring(0, entry.length() - 1)).toAbsolutePath();
            if (!Files.isDirectory(dir)) {
                throw new IllegalArgumentException("--classpath entry " + entry + " names no directory");
            }
            return jarsIn(dir);
        }
        Path path = Path.of(entry).toAbsolutePath();
        if (!Files.exists(path)) {
            throw new IllegalArgumentException("--classpath entry " + entry + " does not exist");
        }
        return List.of(path);
    }

    private static List<Path> jarsIn(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jar"))
                    .map(Path::toAbsolutePath).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }
}
