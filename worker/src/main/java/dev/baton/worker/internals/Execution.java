package dev.baton.worker.internals;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.events.ActivityTask;
import dev.baton.schemas.SiteKey;
import dev.baton.worker.ActivityContext;

/**
 * One generation of one attempt running on this worker. Its phase moves once from RUNNING to exactly
 * one end — FINISHED (reported), STOPPED (taken away by Baton: report nothing) or PARKED (given back
 * by a drain) — so a completion and a park can never both be sent.
 */
public final class Execution implements ActivityContext {

    /** Where an execution is in its life. */
    public enum Phase { RUNNING, FINISHED, STOPPED, PARKED }

    private final ActivityTask task;
    private final SiteKey site;
    private final String workerId;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.RUNNING);
    private volatile Thread thread;
    private volatile byte[] heartbeatDetails;
    private volatile long lastHeartbeatMillis;

    public Execution(ActivityTask task, String workerId, long nowMillis) {
        this.task = task;
        this.site = SiteKey.of(task.getSite());
        this.workerId = workerId;
        this.lastHeartbeatMillis = nowMillis;
    }

    public ActivityTask task() {
        return task;
    }

    public String token() {
        return task.getToken();
    }

    /** Moves RUNNING → {@code end}; false if the execution already ended another way. */
    public boolean end(Phase end) {
        return phase.compareAndSet(Phase.RUNNING, end);
    }

    public Phase phase() {
        return phase.get();
    }

    /** Ends the execution as STOPPED and interrupts its thread; true if it was running. */
    public boolean stop() {
        if (end(Phase.STOPPED)) {
            interrupt();
            return true;
        }
        return false;
    }

    public void interrupt() {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    void runningOn(Thread t) {
        this.thread = t;
    }

    long heartbeatIntervalMillis() {
        Long window = task.getHeartbeatWindowMillis();
        return Math.max(10, (window == null ? 30_000 : window) / 3);
    }

    long lastHeartbeatMillis() {
        return lastHeartbeatMillis;
    }

    void heartbeatSent(long nowMillis) {
        lastHeartbeatMillis = nowMillis;
    }

    ByteBuffer heartbeatDetails() {
        byte[] d = heartbeatDetails;
        return d == null ? null : ByteBuffer.wrap(d);
    }

    @Override
    public SiteKey site() {
        return site;
    }

    @Override
    public String activityType() {
        return task.getActivityType();
    }

    @Override
    public int attempt() {
        return task.getAttempt();
    }

    @Override
    public int generation() {
        return task.getGeneration();
    }

    @Override
    public String idempotencyKey() {
        return task.getIdempotencyKey();
    }

    @Override
    public String workerId() {
        return workerId;
    }

    @Override
    public void heartbeat(byte[] details) {
        this.heartbeatDetails = details == null ? null : details.clone();
    }

    @Override
    public boolean isCancelled() {
        return phase.get() != Phase.RUNNING;
    }
}
