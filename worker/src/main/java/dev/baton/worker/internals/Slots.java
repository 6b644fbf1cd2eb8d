package dev.baton.worker.internals;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A worker's {@code maxConcurrent} slots, shared by all its queue loops. A loop takes slots before it
 * leases, so loops leasing at the same moment cannot together lease more than the worker may hold;
 * each leased execution gives its slot back when it ends, and a loop gives back at once whatever its
 * batch did not use (tasks skipped or left over, or the whole batch when its lease transaction
 * failed). Thread-safe.
 */
public final class Slots {

    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition given = lock.newCondition();
    private int free;

    public Slots(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("slot capacity must be >= 1, was " + capacity);
        }
        this.capacity = capacity;
        this.free = capacity;
    }

    int capacity() {
        return capacity;
    }

    int free() {
        lock.lock();
        try {
            return free;
        } finally {
            lock.unlock();
        }
    }

    /** Takes up to {@code wanted} slots without waiting; returns how many it took, 0 when none is free. */
    int tryTake(int wanted) {
        if (wanted < 0) {
            throw new IllegalArgumentException("slots wanted must be >= 0, was " + wanted);
        }
        lock.lock();
        try {
            int taken = Math.min(wanted, free);
            free -= taken;
            return taken;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gives back {@code n} slots taken with {@link #tryTake}.
     *
     * @throws IllegalStateException if more would be free than the capacity: a slot given back twice
     */
    void giveBack(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("slots given back must be >= 0, was " + n);
        }
        if (n == 0) {
            return;
        }
        lock.lock();
        try {
            if (free + n > capacity) {
                throw new IllegalStateException("free slots must be <= capacity " + capacity + ", giving back " + n + " would make "
                        + (free + n));
            }
            free += n;
            given.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until at least {@code wanted} slots are free or {@code timeout} passes, taking none; true if they are free. */
    boolean awaitFree(int wanted, Duration timeout) throws InterruptedException {
        if (wanted > capacity) {
            throw new IllegalArgumentException("slots awaited must be <= capacity " + capacity + ", was " + wanted);
        }
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (free < wanted) {
                if (left <= 0) {
                    return false;
                }
                left = given.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
