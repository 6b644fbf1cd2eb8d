package dev.baton.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU of this process's threads that no Java thread accounts for, by kind, from {@code /proc/self/task} (Linux; empty
 * elsewhere): the garbage collector's, the JIT compilers' and RocksDB's background threads, known by the names the JVM
 * and RocksDB give them. It splits {@link CpuByRole}'s "outside Java threads" figure, which otherwise says only that
 * the cost is neither Baton's nor Kafka's code. A thread that ended in between is missed (these live as long as the JVM).
 */
final class NativeThreads {

    static final List<String> KINDS = List.of("GC", "JIT", "RocksDB");

    private NativeThreads() {
    }

    /** CPU nanoseconds so far by kind; on-CPU time from {@code schedstat}, which counts nanoseconds (stat counts 10 ms ticks). */
    static Map<String, Long> nanosByKind() {
        Map<String, Long> byKind = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String kind = kindOf(Files.readString(task.resolve("comm")).trim());
                    if (kind != null) {
                        long nanos = Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split("\\s+")[0]);
                        byKind.merge(kind, nanos, Long::sum);
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended while it was read
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return byKind;
    }

    /** The kind of a thread by its name as the kernel holds it (the first 15 characters), or null for any other thread. */
    static String kindOf(String comm) {
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.startsWith("VM Thread")) {
            return "GC"; // the VM thread runs safepoint operations, collections' set-up among them
        }
        if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
            return "JIT";
        }
        if (comm.startsWith("rocksdb:")) {
            return "RocksDB";
        }
        return null;
    }
}
