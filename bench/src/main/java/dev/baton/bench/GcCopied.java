package dev.baton.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;

/**
 * What young collections kept, summed since the JVM started: after each, the survivor space's bytes plus what the old
 * generation grew by (promotions). A young collection's work is mostly copying what survives it, so these bytes per
 * activity say how much the collector had to do whatever CPU it got: unlike its pause time they do not grow with the
 * machine's load. Approximate: an old generation a mixed collection shrank counts as no growth.
 */
final class GcCopied {

    private static final AtomicLong BYTES = new AtomicLong();
    private static final AtomicLong COLLECTIONS = new AtomicLong();

    static {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter && gc.getName().contains("Young")) {
                emitter.addNotificationListener((n, handback) -> {
                    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                        var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()).getGcInfo();
                        BYTES.addAndGet(kept(info.getMemoryUsageBeforeGc(), info.getMemoryUsageAfterGc()));
                        COLLECTIONS.incrementAndGet();
                    }
                }, null, null);
            }
        }
    }

    private GcCopied() {
    }

    /** Bytes kept by young collections so far. */
    static long bytes() {
        return BYTES.get();
    }

    /** Young collections so far (G1's mixed collections among them). */
    static long collections() {
        return COLLECTIONS.get();
    }

    static long kept(Map<String, MemoryUsage> before, Map<String, MemoryUsage> after) {
        long kept = 0;
        for (Map.Entry<String, MemoryUsage> pool : after.entrySet()) {
            String name = pool.getKey();
            if (name.contains("Survivor")) {
                kept += pool.getValue().getUsed();
            } else if (name.contains("Old") || name.contains("Tenured")) {
                MemoryUsage was = before.get(name);
                kept += Math.max(0, pool.getValue().getUsed() - (was == null ? 0 : was.getUsed()));
            }
        }
        return kept;
    }
}
