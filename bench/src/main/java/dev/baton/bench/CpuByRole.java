package dev.baton.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.ObjLongConsumer;

/**
 * Where one process's CPU went, by Baton role, when broker, streams app, worker and client share
 * the JVM (as in {@code baton bench dispatch}). Java threads are attributed by name: Baton names its
 * threads and Kafka clients after their role. Whatever no Java thread accounts for — the garbage
 * collector, the JIT compiler, RocksDB's native threads, and Java threads that ended in between — is
 * reported as outside Java threads.
 */
final class CpuByRole {

    enum Role {
        BROKER("broker"), STREAMS_APP("streams app"), WORKER("worker"), CLIENT("client");

        private final String label;

        Role(String label) {
            this.label = label;
        }
    }

    /**
     * CPU nanoseconds so far: the whole process, and its live Java threads by role; the bytes those threads allocated;
     * and the JVM's and RocksDB's own threads by kind ({@link NativeThreads}).
     */
    record Snapshot(long processNanos, Map<Role, Long> threadNanos, Map<Role, Long> threadBytes, Map<String, Long> nativeNanos) {
    }

    private CpuByRole() {
    }

    static Snapshot snapshot() {
        Map<Role, Long> byRole = new EnumMap<>(Role.class);
        Map<Role, Long> bytesByRole = new EnumMap<>(Role.class);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue; // ended since the id list was taken
            }
            Role role = roleOf(info.getThreadName());
            byRole.merge(role, Math.max(0, threads.getThreadCpuTime(info.getThreadId())), Long::sum);
            bytesByRole.merge(role, Math.max(0, threads.getThreadAllocatedBytes(info.getThreadId())), Long::sum);
        }
        return new Snapshot(processNanos(), byRole, bytesByRole, NativeThreads.nanosByKind());
    }

    /** Calls {@code action} with the name and CPU nanoseconds so far of every live Java thread that has used any. */
    static void forEachLiveThread(ObjLongConsumer<String> action) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue; // ended since the id list was taken
            }
            long nanos = threads.getThreadCpuTime(info.getThreadId());
            if (nanos > 0) {
                action.accept(info.getThreadName(), nanos);
            }
        }
    }

    private static long processNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * The role a thread works for, from its name: Baton's own threads ({@code baton-queue-...},
     * {@code baton-results-...}), the streams app's ({@code baton-streams-...}) and Kafka client
     * threads named after their client id ({@code kafka-producer-network-thread | baton-worker...}); the dispatch
     * client's callback pool ({@code baton-callbacks-...}) is the client's. The Kafka shape's threads ({@code bench-shape-...},
     * {@link ShapeEcho}) go to the role they stand in for.
     * The rest is the broker's, plus any unnamed client thread.
     */
    static Role roleOf(String thread) {
        if (thread.contains("baton-streams") || thread.contains("bench-shape-streams")) {
            return Role.STREAMS_APP;
        }
        if (thread.contains("baton-worker") || thread.startsWith("baton-queue-") || thread.startsWith("baton-activity-")
                || thread.startsWith("baton-control-") || thread.startsWith("baton-housekeeping-") || thread.startsWith("baton-lease-deferral")
                || thread.startsWith("baton-stops ") || thread.contains("bench-shape-worker")) {
            return Role.WORKER;
        }
        if (thread.contains("baton-dispatch-") || thread.startsWith("baton-results-") || thread.startsWith("baton-callbacks-") || thread.equals("main")
                || thread.contains("bench-shape-dispatch") || thread.contains("bench-shape-results")) {
            return Role.CLIENT;
        }
        return Role.BROKER;
    }

    /** "broker 55, streams app 78, ..., outside Java threads (GC, JIT, RocksDB) 52": microseconds per unit of work. */
    static String perUnit(Snapshot from, Snapshot to, long units) {
        StringBuilder line = new StringBuilder();
        long inThreads = 0;
        for (Role role : Role.values()) {
            long nanos = Math.max(0, to.threadNanos().getOrDefault(role, 0L) - from.threadNanos().getOrDefault(role, 0L));
            inThreads += nanos;
            line.append(role.label).append(' ').append(micros(nanos, units)).append(", ");
        }
        long outside = Math.max(0, (to.processNanos() - from.processNanos()) - inThreads);
        line.append("outside Java threads (GC, JIT, RocksDB) ").append(micros(outside, units));
        if (!to.nativeNanos().isEmpty()) {
            StringBuilder kinds = new StringBuilder();
            long known = 0;
            for (String kind : NativeThreads.KINDS) {
                long nanos = Math.max(0, to.nativeNanos().getOrDefault(kind, 0L) - from.nativeNanos().getOrDefault(kind, 0L));
                known += nanos;
                kinds.append(kind).append(' ').append(String.format("%.1f", nanos / 1e3 / Math.max(1, units))).append(", ");
            }
            line.append(" (").append(kinds).append("rest ").append(String.format("%.1f", Math.max(0, outside - known) / 1e3 / Math.max(1, units)))
                    .append(')');
        }
        return line.toString();
    }

    /**
     * "broker 7.7, streams app 22.7, worker 5.2, client 5.6": kilobytes allocated per unit of work by each role's
     * live threads (a thread that ended in between is missed). Unlike CPU time it does not grow with the
     * machine's load, so it compares runs on a shared machine; the collector's work follows it.
     */
    static String allocatedPerUnit(Snapshot from, Snapshot to, long units) {
        StringBuilder line = new StringBuilder();
        long total = 0;
        for (Role role : Role.values()) {
            long bytes = Math.max(0, to.threadBytes().getOrDefault(role, 0L) - from.threadBytes().getOrDefault(role, 0L));
            total += bytes;
            line.append(role.label).append(' ').append(String.format("%.1f", bytes / 1e3 / Math.max(1, units))).append(", ");
        }
        return String.format("%.1f = %s", total / 1e3 / Math.max(1, units), line.substring(0, line.length() - 2));
    }

    static long micros(long nanos, long units) {
        return Math.round(nanos / 1e3 / Math.max(1, units));
    }
}
