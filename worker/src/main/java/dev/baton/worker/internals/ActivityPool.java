package dev.baton.worker.internals;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The activity threads: up to {@code maxThreads}, each running one activity at a time, so a handler
 * may block for as long as it likes. Unlike a fixed {@code ThreadPoolExecutor}, it wakes at most one
 * idle thread at a time: the woken thread, once it holds a task, wakes the next if more are queued.
 * A fixed pool woke one thread per task, and for quick activities that park/unpark hand-off was
 * most of the worker's CPU (85% of the activity threads' samples). Here a free thread keeps taking
 * queued tasks without parking, and threads that block on their activity are still replaced one
 * wake-up later, so a queued task never waits behind a blocked one for longer than that.
 */
public final class ActivityPool implements Executor {

    private final int maxThreads;
    private final ThreadFactory threads;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private final List<Thread> started = new ArrayList<>();
    /** Threads waiting for work and not yet woken, most recently idle last (its caches are warm). */
    private final ArrayDeque<Idle> idle = new ArrayDeque<>();
    /** Threads woken or started and not yet running; at most one, so a burst does not wake a thread per task. */
    private int waking;
    private boolean shutdown;

    /** An idle thread's own wake-up: woken only by {@link #callHelp}, so spurious returns are told apart. */
    private final class Idle {
        final Condition wakeUp = lock.newCondition();
        boolean woken;
    }

    public ActivityPool(int maxThreads, ThreadFactory threads) {
        if (maxThreads < 1) {
            throw new IllegalArgumentException("maxThreads must be at least 1, was " + maxThreads);
        }
        this.maxThreads = maxThreads;
        this.threads = threads;
    }

    @Override
    public void execute(Runnable task) {
        lock.lock();
        try {
            if (shutdown) {
                throw new RejectedExecutionException("activity pool is shut down");
            }
            queue.add(task);
            callHelp();
        } finally {
            lock.unlock();
        }
    }

    /** Threads started so far; a workload of quick activities needs few of them. */
    public int threads() {
        lock.lock();
        try {
            return started.size();
        } finally {
            lock.unlock();
        }
    }

    /** Drops queued tasks and interrupts every thread; each ends once its activity returns. */
    public void shutdownNow() {
        lock.lock();
        try {
            shutdown = true;
            queue.clear();
            idle.forEach(i -> i.wakeUp.signal());
            started.forEach(Thread::interrupt);
        } finally {
            lock.unlock();
        }
    }

    private void loop() {
        Idle self = new Idle();
        lock.lock();
        waking--; // started by callHelp
        try {
            while (!shutdown) {
                Runnable task = queue.poll();
                if (task == null) {
                    awaitWork(self);
                    continue;
                }
                if (!queue.isEmpty()) {
                    callHelp(); // this task may block; let another thread take the next
                }
                lock.unlock();
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), e);
                } finally {
                    lock.lock();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void awaitWork(Idle self) {
        self.woken = false;
        idle.addLast(self);
        try {
            while (!self.woken && !shutdown) {
                self.wakeUp.await();
            }
        } catch (InterruptedException e) {
            // shutdownNow, or a stop interrupt that reached the thread after its activity returned
        }
        if (self.woken) {
            waking--;
        } else {
            idle.remove(self);
        }
    }

    /** Wakes an idle thread, or starts one while below the limit, unless one is already on its way. */
    private void callHelp() {
        if (waking > 0) {
            return;
        }
        if (!idle.isEmpty()) {
            Idle next = idle.pollLast();
            next.woken = true;
            waking++;
            next.wakeUp.signal();
        } else if (started.size() < maxThreads) {
            Thread t = threads.newThread(this::loop);
            t.start();
            started.add(t);
            waking++;
        }
    }
}
