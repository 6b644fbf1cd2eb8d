package dev.baton.embedded;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JVM started on this JVM's class path: a broker node, a streams app or a worker that a test or the soak kills
 * for real. Child JVMs of one kind share a class-data archive (AppCDS, JDK 17's dynamic archive) when the system
 * property {@value #ARCHIVE_DIR_PROPERTY} names a directory for them (the build sets it for its tests): the first
 * child of a kind records what it loads and, once it is ready, is asked to write it ({@code jcmd VM.cds
 * dynamic_dump}); the children started after that map those classes instead of loading them from the jars, about a
 * second less CPU and a second sooner ready for each streams app. Without the property a child starts as before.
 *
 * <p>A JVM that has loaded a class from a directory on its class path cannot write an archive, so with archives on a
 * child's class path is this JVM's with its directories (a module's test classes) as jars ({@link ClassPathJars}). An
 * archive that does not match (a jar rebuilt since) is ignored by the JVM, which then loads from the jars as without
 * one.
 */
public final class ChildJvm {

    /** The system property naming the directory for the archives; unset, no archive is used. */
    public static final String ARCHIVE_DIR_PROPERTY = "baton.child.classData";

    private static final Logger LOG = LoggerFactory.getLogger(ChildJvm.class);

    /** Attempts to write one kind's archive before this JVM gives up on it (a trainer killed before its dump). */
    private static final int TRAINING_ATTEMPTS = 3;

    /** Per archive: attempts so far, and whether one is under way (one trainer of a kind at a time). */
    private static final Map<String, Training> TRAININGS = new ConcurrentHashMap<>();

    private final String kind;
    private final Process process;
    private final Path trainingArchive;
    private final AtomicBoolean dumping = new AtomicBoolean();

    private ChildJvm(String kind, Process process, Path trainingArchive) {
        this.kind = kind;
        this.process = process;
        this.trainingArchive = trainingArchive;
        if (trainingArchive != null) {
            // A trainer that dies before it is ready gives its turn to the next child of its kind.
            process.onExit().thenRun(() -> {
                if (dumping.compareAndSet(false, true)) {
                    TRAININGS.get(trainingArchive.toString()).end();
                }
            });
        }
    }

    /**
     * Starts {@code mainClass} with {@code args} in a JVM of its own, its output and errors merged.
     *
     * @param kind what the child is ({@code kafka-node}, {@code streams-app}...): children of one kind share an archive
     */
    public static ChildJvm start(String kind, List<String> jvmOptions, String mainClass, List<String> args) throws IOException {
        String classPath;
        Path archive;
        try {
            classPath = classPath();
            archive = archive(kind, classPath);
        } catch (UncheckedIOException | UnsupportedOperationException e) { // a file system without hard links, say
            LOG.debug("{} starts without a class-data archive: {}", kind, e.toString());
            classPath = System.getProperty("java.class.path");
            archive = null;
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        Path training = null;
        if (archive != null) {
            if (Files.isRegularFile(archive)) {
                command.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds*=off"));
            } else if (claimTraining(archive)) {
                command.add("-XX:+RecordDynamicDumpInfo");
                training = archive;
            }
        }
        // The child's temporary files go to a directory of its own, deleted once it exits however it ends: a child killed
        // with kill -9 runs no deleteOnExit, and each streams app or broker left RocksDB's 15 MB native library behind.
        Path tmp = Files.createTempDirectory("baton-child-" + kind.replaceAll("[^A-Za-z0-9.-]", "_") + "-");
        command.add("-Djava.io.tmpdir=" + tmp);
        command.addAll(List.of("-cp", classPath, mainClass));
        command.addAll(args);
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            Dirs.deleteRecursively(tmp);
            throw e;
        }
        process.onExit().thenRun(() -> Dirs.deleteRecursively(tmp));
        return new ChildJvm(kind, process, training);
    }

    public Process process() {
        return process;
    }

    /**
     * Says the child is up (it printed its ready line): a child started to record its kind's archive writes it now, in
     * the background. A no-op for every other child.
     */
    public void ready() {
        if (trainingArchive == null || !dumping.compareAndSet(false, true)) {
            return;
        }
        Thread dump = new Thread(() -> writeArchive(trainingArchive), "class-data-dump-" + process.pid());
        dump.setDaemon(true);
        dump.start();
    }

    private void writeArchive(Path archive) {
        Path partial = archive.resolveSibling(archive.getFileName() + "." + ProcessHandle.current().pid() + "-" + process.pid());
        boolean written = false;
        long start = System.nanoTime();
        try {
            Files.createDirectories(archive.getParent());
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(process.pid()), "VM.cds", "dynamic_dump", partial.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (jcmd.waitFor(60, TimeUnit.SECONDS) && jcmd.exitValue() == 0 && Files.size(partial) > 0) {
                // Moved whole: another test JVM of the build may be writing the same kind's archive, or mapping it.
                Files.move(partial, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                written = true;
                pruneOthers(kind, archive);
                LOG.info("class-data archive {} written from pid {} in {} ms", archive.getFileName(), process.pid(),
                        (System.nanoTime() - start) / 1_000_000);
            } else {
                jcmd.destroyForcibly();
            }
        } catch (IOException e) {
            LOG.debug("no class-data archive {}: {}", archive.getFileName(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (!written) {
                try {
                    Files.deleteIfExists(partial);
                } catch (IOException ignored) {
                    // a leftover in the build directory; the next build's clean removes it
                }
                TRAININGS.get(archive.toString()).end(); // the next child of the kind may try again
            }
        }
    }

    private static boolean claimTraining(Path archive) {
        return TRAININGS.computeIfAbsent(archive.toString(), k -> new Training()).begin();
    }

    /** The attempts to write one archive from this JVM. */
    private static final class Training {
        private int attempts;
        private boolean underWay;

        synchronized boolean begin() {
            if (underWay || attempts >= TRAINING_ATTEMPTS) {
                return false;
            }
            attempts++;
            underWay = true;
            return true;
        }

        synchronized void end() {
            underWay = false;
        }
    }

    /**
     * The archive for {@code kind} on this class path and JDK, or null when archives are off. Its name covers each jar's
     * size and time: an archive the JVM would refuse (a jar rebuilt by a later build in the same directory) is never
     * picked again, and the next child of the kind writes a new one.
     */
    static Path archive(String kind, String classPath) {
        Path dir = archiveDir();
        if (dir == null) {
            return null;
        }
        String identity = String.join("\n", kind, System.getProperty("java.home"), System.getProperty("java.vm.version"),
                jarStamps(classPath));
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
            return dir.resolve(kind + "-" + HexFormat.of().formatHex(digest, 0, 8) + ".jsa");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** Each class-path entry with its size and time (what the JVM checks an archive's jars by). */
    private static String jarStamps(String classPath) {
        StringBuilder stamps = new StringBuilder();
        for (String entry : classPath.split(File.pathSeparator)) {
            Path path = Path.of(entry);
            try {
                stamps.append(entry).append('|').append(Files.size(path)).append('|').append(Files.getLastModifiedTime(path).toMillis());
            } catch (IOException e) {
                stamps.append(entry).append("|missing");
            }
            stamps.append('\n');
        }
        return stamps.toString();
    }

    /** Removes the archives of {@code kind} other than {@code kept}: written by earlier builds, refused by now. */
    private static void pruneOthers(String kind, Path kept) {
        Pattern ofKind = Pattern.compile(Pattern.quote(kind) + "-[0-9a-f]{16}\\.jsa");
        try (Stream<Path> files = Files.list(kept.getParent())) {
            for (Path file : files.filter(f -> !f.equals(kept) && ofKind.matcher(f.getFileName().toString()).matches()).toList()) {
                Files.deleteIfExists(file); // a child that mapped it keeps its pages
            }
        } catch (IOException e) {
            LOG.debug("earlier archives of {} left in {}: {}", kind, kept.getParent(), e.toString());
        }
    }

    /** A child's class path: this JVM's, with archives on its directories as jars (see the class comment). */
    static String classPath() {
        String classPath = System.getProperty("java.class.path");
        Path dir = archiveDir();
        return dir == null ? classPath : ClassPathJars.of(classPath, dir.resolve("class-path"));
    }

    /** Where archives go; null when they are off, or on a JVM other than HotSpot (the options are HotSpot's). */
    private static Path archiveDir() {
        String dir = System.getProperty(ARCHIVE_DIR_PROPERTY);
        String vm = System.getProperty("java.vm.name", "");
        boolean hotSpot = vm.contains("HotSpot") || vm.contains("OpenJDK");
        return dir == null || dir.isBlank() || !hotSpot ? null : Path.of(dir);
    }
}
