package dev.baton.testkit.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a process holds, measured from outside: its heap right after a full GC (through {@code jcmd},
 * so only what is live counts) and the bytes under a directory (a streams app's RocksDB state dir).
 */
public final class HeapProbe {

    /** A heap line of {@code jcmd GC.heap_info}: "def new generation total 9792K, used 1234K", "garbage-first heap total ...". */
    private static final Pattern USED = Pattern.compile("(?:generation|heap)\\s+total\\s+(\\d+)K,\\s+used\\s+(\\d+)K");

    private HeapProbe() {
    }

    /** Runs a full GC in process {@code pid}, then returns its heap in use, in bytes; -1 if jcmd could not tell. */
    public static long heapAfterGc(long pid) {
        if (jcmd(pid, "GC.run") == null) {
            return -1;
        }
        String info = jcmd(pid, "GC.heap_info");
        return info == null ? -1 : usedHeapBytes(info);
    }

    /** The sum of the "used" figures of the heap's generations in {@code jcmd GC.heap_info} output; -1 when it names none. */
    static long usedHeapBytes(String heapInfo) {
        Matcher m = USED.matcher(heapInfo);
        long usedK = 0;
        boolean any = false;
        while (m.find()) {
            usedK += Long.parseLong(m.group(2));
            any = true;
        }
        return any ? usedK * 1024 : -1;
    }

    /** The resident set of process {@code pid} (heap, RocksDB's native memory and the rest), in bytes; -1 where /proc cannot tell. */
    public static long residentBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            return -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** This JVM's heap in use after a full GC, in bytes (what a client in this process holds, among the rest). */
    public static long ownHeapAfterGc() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    /** The bytes of every regular file under {@code dir}; 0 when it does not exist. Files vanishing meanwhile (compactions) are skipped. */
    public static long directoryBytes(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.mapToLong(f -> {
                try {
                    return Files.isRegularFile(f) ? Files.size(f) : 0;
                } catch (IOException e) {
                    return 0; // deleted by a compaction while walking
                }
            }).sum();
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }

    private static String jcmd(long pid, String command) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return null;
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
