package dev.baton.worker.internals;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.baton.events.SiteRef;

/** The executions this worker holds (leased, queued or running), by token. */
public final class Executions {

    private final Map<String, Execution> byToken = new ConcurrentHashMap<>();
    private final Object slotFreed = new Object();

    public void add(Execution e) {
        byToken.put(e.token(), e);
    }

    public void remove(Execution e) {
        if (byToken.remove(e.token(), e)) {
            synchronized (slotFreed) {
                slotFreed.notifyAll();
            }
        }
    }

    /** Waits until fewer than {@code max} executions are held or {@code timeout} passes; true if a slot is free. */
    public boolean awaitFewerThan(int max, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (slotFreed) {
            while (byToken.size() >= max) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(slotFreed, left);
            }
            return true;
        }
    }

    public int size() {
        return byToken.size();
    }

    public Collection<Execution> all() {
        return byToken.values();
    }

    /** Stops the execution of that generation, if this worker holds it; true if one was stopped. */
    public boolean stop(SiteRef site, int attempt, int generation) {
        boolean stopped = false;
        for (Execution e : byToken.values()) {
            if (e.task().getSite().equals(site) && e.attempt() == attempt && e.generation() == generation) {
                stopped |= e.stop();
            }
        }
        return stopped;
    }
}
