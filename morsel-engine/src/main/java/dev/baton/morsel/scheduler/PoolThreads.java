package dev.baton.morsel.scheduler;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The scheduler's own threads, one per worker past the first, each handed one share of a pipeline at a time. A thread
 * that finished its share spins for up to {@code spinNanos} waiting for the next before it parks, and a parked one is
 * unparked when its next share is handed over.
 *
 * <p>Thread contract: {@link #hand} is called by the scheduler's calling thread only, and only after the thread's
 * previous share ended (the scheduler's barrier); {@link #close} from any thread. A share's interrupt status is cleared
 * after it runs, so a peer's interrupt (a failed pipeline) does not reach the next share.
 */
final class PoolThreads {

    private final Slot[] slots;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final long spinNanos;

    /** One pool thread's hand-over: the share it runs next ({@code null}: none yet). */
    private static final class Slot {
        volatile Runnable next;
        Thread thread;
    }

    PoolThreads(int count, long spinNanos, String namePrefix) {
        this.spinNanos = spinNanos;
        this.slots = new Slot[count];
        for (int i = 0; i < count; i++) {
            Slot slot = slots[i] = new Slot();
            slot.thread = new Thread(() -> loop(slot), namePrefix + (i + 1));
            slot.thread.setDaemon(true);
            slot.thread.start();
        }
    }

    /** Runs {@code share} on pool thread {@code i} (0-based). */
    void hand(int i, Runnable share) {
        Slot slot = slots[i];
        slot.next = share;
        LockSupport.unpark(slot.thread);
    }

    private void loop(Slot slot) {
        while (true) {
            Runnable share = awaitShare(slot);
            if (share == null) {
                return;
            }
            slot.next = null; // before the share runs, so before the barrier lets the caller hand the next one
            try {
                share.run();
            } finally {
                Thread.interrupted();
            }
        }
    }

    /*
     * Why spin before parking: the next pipeline of a query (a join's probe after its build, an aggregate's merge after
     * its scan) usually comes within microseconds, and a parked thread must be woken by the kernel and wait for a CPU,
     * which on a virtual machine took longer than the pipelines of a short query. The spin is bounded, so an idle
     * scheduler costs no CPU.
     */
    private Runnable awaitShare(Slot slot) {
        long deadline = System.nanoTime() + spinNanos;
        Runnable share;
        while ((share = slot.next) == null) {
            if (closed.get()) {
                return null;
            }
            if (System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            } else {
                LockSupport.park(this);
                Thread.interrupted(); // a stale interrupt must not turn the park into a spin
            }
        }
        return share;
    }

    void close() {
        if (closed.compareAndSet(false, true)) {
            for (Slot slot : slots) {
                LockSupport.unpark(slot.thread);
            }
        }
    }
}
