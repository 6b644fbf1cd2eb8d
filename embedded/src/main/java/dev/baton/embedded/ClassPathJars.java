package dev.baton.embedded;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * A class path whose directories are replaced by jars of their contents, in the same order. A JVM writes no
 * class-data archive once it has loaded a class from a directory on its class path (it stops with "Cannot have
 * non-empty directory in paths"), and a module's test classes are a directory: its children load their logging
 * configuration there, and a test's own programs. Each jar is named by its directory's contents (paths, sizes,
 * times), made once and shared by every JVM of the build that asks for the same contents.
 */
final class ClassPathJars {

    private static final Map<String, String> MADE = new ConcurrentHashMap<>();

    private ClassPathJars() {
    }

    /** {@code classPath} with every directory in it replaced by a jar in {@code jarDir}. */
    static String of(String classPath, Path jarDir) {
        return MADE.computeIfAbsent(classPath + File.pathSeparator + jarDir, k -> {
            List<String> entries = new ArrayList<>();
            for (String entry : classPath.split(File.pathSeparator)) {
                if (!entry.isEmpty()) {
                    Path path = Path.of(entry);
                    entries.add(Files.isDirectory(path) ? jar(path, jarDir).toString() : entry);
                }
            }
            return String.join(File.pathSeparator, entries);
        });
    }

    private static Path jar(Path directory, Path jarDir) {
        try {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(directory)) {
                files = walk.sorted().toList();
            }
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(directory.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8));
            for (Path file : files) {
                digest.update((directory.relativize(file) + "|" + Files.size(file) + "|" + Files.getLastModifiedTime(file).toMillis() + "\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
            Files.createDirectories(jarDir);
            Path jar = jarDir.resolve(directory.getFileName() + "-" + HexFormat.of().formatHex(digest.digest(), 0, 8) + ".jar");
            if (Files.isRegularFile(jar)) {
                return jar;
            }
            Path partial = Files.createTempFile(jarDir, directory.getFileName().toString(), ".partial");
            try {
                write(directory, files, partial);
                // Linked, not moved: a jar another JVM made first stays the one in use (its archives name its time).
                Files.createLink(jar, partial);
            } catch (FileAlreadyExistsException madeMeanwhile) {
                // theirs is the same contents
            } finally {
                Files.deleteIfExists(partial);
            }
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a jar of the class path directory " + directory, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    private static void write(Path directory, List<Path> files, Path jar) throws IOException {
        try (OutputStream out = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(out)) {
            for (Path file : files) {
                if (file.equals(directory)) {
                    continue;
                }
                String name = directory.relativize(file).toString().replace(File.separatorChar, '/');
                boolean isDirectory = Files.isDirectory(file);
                ZipEntry entry = new ZipEntry(isDirectory ? name + "/" : name);
                entry.setTime(Files.getLastModifiedTime(file).toMillis());
                zip.putNextEntry(entry);
                if (!isDirectory) {
                    Files.copy(file, zip);
                }
                zip.closeEntry();
            }
        }
    }
}
