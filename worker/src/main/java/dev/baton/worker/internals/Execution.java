package dev.baton.worker.internals;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.events.ActivityTask;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.payload.PayloadLimits;
import dev.baton.worker.ActivityContext;
import dev.baton.worker.AsyncCompletion;
import dev.baton.worker.CompletionRef;

/**
 * One generation of one attempt running on this worker. Its phase moves once from RUNNING to exactly
 * one end — FINISHED (reported), STOPPED (taken away by Baton: report nothing), PARKED (given back
 * by a drain) or HANDED_OFF (its handler asked to complete later: whoever holds its reference
 * reports) — so a completion and a park can never both be sent.
 */
public final class Execution implements ActivityContext {

    /** Where an execution is in its life. */
    public enum Phase { RUNNING, FINISHED, STOPPED, PARKED, HANDED_OFF }

    private final ActivityTask task;
    private final SiteKey site;
    private final String workerId;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.RUNNING);
    private volatile Thread thread;
    private volatile EncodedPayload heartbeatDetails;
    private volatile long lastHeartbeatMillis;
    private volatile PayloadConverters converters = PayloadConverters.defaults();
    private volatile Completer completer;
    private volatile boolean completesLater;
    private volatile DeferredLease deferredLease;

    public Execution(ActivityTask task, String workerId, long nowMillis) {
        this.task = task;
        this.site = SiteKey.of(task.getSite());
        this.workerId = workerId;
        this.lastHeartbeatMillis = nowMillis;
    }

    /** The worker's converters (typed heartbeats) and its line for an async completion; set before the handler runs. */
    void attach(PayloadConverters converters, Completer completer) {
        this.converters = converters;
        this.completer = completer;
    }

    public CompletionRef ref() {
        return new CompletionRef(site, task.getAttempt(), task.getGeneration(), task.getToken());
    }

    /** Under deferred plain leases, the lease this run's first report settles; null otherwise. Set before the handler starts. */
    void deferLease(DeferredLease lease) {
        this.deferredLease = lease;
    }

    DeferredLease deferredLease() {
        return deferredLease;
    }

    /** Whether the handler asked to complete later. */
    boolean completesLater() {
        return completesLater;
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

    EncodedPayload heartbeatDetails() {
        return heartbeatDetails;
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
        requireNotHandedOff();
        this.heartbeatDetails = details == null ? null : bounded(EncodedPayload.octetStream(details.clone()));
    }

    @Override
    public void heartbeat(Object details) {
        requireNotHandedOff();
        this.heartbeatDetails = details == null ? null : bounded(converters.encode(details));
    }

    /** Once handed off, the worker sends no heartbeat of this generation: recorded here, details (and the lease) were lost (h/adv22w). */
    private void requireNotHandedOff() {
        if (phase.get() == Phase.HANDED_OFF) {
            throw new IllegalStateException(site + " attempt " + attempt() + " gen " + generation() + " was handed off (completeLater): "
                    + "its worker no longer heartbeats it; heartbeat through its AsyncCompletion (or ActivityCompletionClient)");
        }
    }

    /** Refused here, at the handler's call, rather than dead-lettered by the streams app (which would lose the lease). */
    private static EncodedPayload bounded(EncodedPayload details) {
        if (details.data().length > PayloadLimits.MAX_HEARTBEAT_DETAILS_BYTES) {
            throw new IllegalArgumentException("heartbeat details must be <= " + PayloadLimits.MAX_HEARTBEAT_DETAILS_BYTES
                    + " bytes, were " + details.data().length);
        }
        return details;
    }

    @Override
    public Optional<EncodedPayload> lastHeartbeatDetails() {
        return Optional.ofNullable(task.getLastHeartbeatDetails()).map(EncodedPayload::of);
    }

    @Override
    public <T> Optional<T> lastHeartbeatDetails(Class<T> type) {
        return lastHeartbeatDetails().map(d -> converters.decode(d, type));
    }

    @Override
    public AsyncCompletion completeLater() {
        Completer line = completer;
        if (line == null) {
            throw new IllegalStateException("execution of " + site + " attempt " + attempt() + " is not run by a worker: it cannot complete later");
        }
        completesLater = true;
        return new HandedOffCompletion(ref(), line);
    }

    /**
     * Any end but a hand-off: a generation handed off is its holder's, and is cancelled only once a stop for it
     * reached this worker (as {@link AsyncCompletion#isStopped()}); read as cancelled from the hand-off on, its
     * async work gave up though nothing was cancelled (h/adv22w).
     */
    @Override
    public boolean isCancelled() {
        Phase p = phase.get();
        if (p == Phase.HANDED_OFF) {
            Completer line = completer;
            return line != null && line.stopped(ref());
        }
        return p != Phase.RUNNING;
    }
}
