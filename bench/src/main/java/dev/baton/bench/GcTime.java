package dev.baton.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The garbage collector's share of a stretch of a benchmark. The whole pipeline shares one JVM in
 * {@code baton bench dispatch}, so a collector's pauses stall every stage at once, and the collector
 * itself (its barriers and threads) is a large part of the CPU per activity: a bench figure means
 * little without naming the collector it ran on.
 */
record GcTime(long collections, long millis, long wallNanos, long keptBytes, long youngCollections) {

    static GcTime now() {
        long count = 0;
        long millis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            millis += Math.max(0, gc.getCollectionTime());
        }
        return new GcTime(count, millis, System.nanoTime(), GcCopied.bytes(), GcCopied.collections());
    }

    /** "G1 Young Generation, G1 Old Generation; max heap 2048 MiB". */
    static String collector() {
        List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
        String names = beans.stream().map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
        return names + "; max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB";
    }

    /**
     * "14 collections, 230 ms (9% of the time)" between {@code from} and this. The collectors' time
     * counts their pauses; for G1 the concurrent marking runs beside the application and is not in it.
     */
    String since(GcTime from) {
        long ms = millis - from.millis;
        double wallMs = Math.max(1, (wallNanos - from.wallNanos) / 1e6);
        return String.format("%d collections, %d ms (%.0f%% of the time)", collections - from.collections, ms, 100 * ms / wallMs);
    }

    /** "kept 41.2 MB per young collection, 3.1 KB per activity": what young collections copied ({@link GcCopied}) between {@code from} and this. */
    String keptSince(GcTime from, long activities) {
        long bytes = Math.max(0, keptBytes - from.keptBytes);
        long n = Math.max(1, youngCollections - from.youngCollections);
        return String.format("kept %.1f MB per young collection, %.2f KB per activity", bytes / 1e6 / n, bytes / 1e3 / Math.max(1, activities));
    }
}
