package dev.baton.worker.internals;

import java.util.Map;

import dev.baton.events.ActivityTask;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.worker.ActivityHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs leased executions on the bounded pool, reports how each ended, and gives back its slot. */
public final class ActivityRunner {

    private static final Logger log = LoggerFactory.getLogger(ActivityRunner.class);

    private final Map<String, ActivityHandler> handlers;
    private final ActivityPool pool;
    private final Executions executions;
    private final Slots slots;
    private final EventSender events;
    private final PayloadConverters converters;
    private final Completer completer;

    public ActivityRunner(Map<String, ActivityHandler> handlers, ActivityPool pool, Executions executions, Slots slots,
                          EventSender events) {
        this(handlers, pool, executions, slots, events, PayloadConverters.defaults());
    }

    /** With the converters that encode failure details, typed heartbeats and async results. */
    public ActivityRunner(Map<String, ActivityHandler> handlers, ActivityPool pool, Executions executions, Slots slots,
                          EventSender events, PayloadConverters converters) {
        this.handlers = handlers;
        this.pool = pool;
        this.executions = executions;
        this.slots = slots;
        this.events = events;
        this.converters = converters;
        this.completer = new Completer(events, converters, executions);
    }

    /** Runs an execution leased with a slot taken from {@link Slots}; the slot is given back once the handler returns. */
    public void submit(Execution e) {
        e.attach(converters, completer);
        executions.add(e);
        pool.execute(() -> run(e));
    }

    /** The run of this token in this worker, or null: a copy of its task read again is not run twice. */
    public Execution running(String token) {
        return executions.get(token);
    }

    /** Whether this worker was told to stop the run of this token: a task read after its stop is not run. */
    public boolean stopped(String token) {
        return executions.stopSeen(token);
    }

    /**
     * Obeys a stop read on a task topic ({@link ActivityTask#getStopTokenFingerprint()}): the generation
     * is remembered as stopped, so its task is not started here, and stopped if it runs here; true then.
     */
    public boolean stop(ActivityTask stop) {
        return executions.stop(stop.getSite(), stop.getAttempt(), stop.getGeneration(), stop.getStopTokenFingerprint());
    }

    private void run(Execution e) {
        e.runningOn(Thread.currentThread());
        try {
            if (e.isCancelled() || executions.stopSeen(e.token()) && e.end(Execution.Phase.STOPPED)) {
                return; // stopped before it started (while queued, or before this worker read it): nothing to run or report
            }
            ActivityHandler handler = handlers.get(e.activityType());
            if (handler == null) {
                finish(e, null, Reasons.TERMINAL + " no handler for activity type '" + e.activityType() + "' on worker " + e.workerId(),
                        ActivityFailure.of("NoHandler", "no handler for activity type '" + e.activityType() + "'"));
                return;
            }
            EncodedPayload output = handler.handlePayload(e, EncodedPayload.of(e.task().getInput()));
            if (e.completesLater()) {
                handOff(e);
            } else {
                finish(e, output, null, null);
            }
        } catch (Throwable ex) {
            finish(e, null, Failures.reason(ex), Failures.failure(ex, converters));
        } finally {
            executions.remove(e); // first, so the held executions never outnumber the slots taken
            slots.giveBack(1);
            Thread.interrupted(); // a stop or park interrupt must not leak into the pool's next task
        }
    }

    /** Reports the end unless Baton took the execution away or a drain parked it first. */
    private void finish(Execution e, EncodedPayload output, String reason, ActivityFailure failure) {
        if (!e.end(Execution.Phase.FINISHED)) {
            log.debug("{} attempt {} gen {} ended as {}; not reporting", e.site(), e.attempt(), e.generation(), e.phase());
            return;
        }
        if (reason == null) {
            events.completed(e, output);
        } else {
            events.failed(e, reason, failure);
        }
    }

    /**
     * The handler will complete later: the execution leaves this worker (slot freed, no more
     * heartbeats from here, a stop has nothing to interrupt) and its handle's holder reports.
     */
    private void handOff(Execution e) {
        if (e.end(Execution.Phase.HANDED_OFF)) {
            log.debug("worker {}: {} attempt {} gen {} completes later", e.workerId(), e.site(), e.attempt(), e.generation());
        }
    }
}
