package dev.baton.worker.internals;

import java.util.Map;

import dev.baton.schemas.Reasons;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.worker.ActivityHandler;
import dev.baton.worker.RetryableActivityException;
import dev.baton.worker.TerminalActivityException;
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

    public ActivityRunner(Map<String, ActivityHandler> handlers, ActivityPool pool, Executions executions, Slots slots,
                          EventSender events) {
        this.handlers = handlers;
        this.pool = pool;
        this.executions = executions;
        this.slots = slots;
        this.events = events;
    }

    /** Runs an execution leased with a slot taken from {@link Slots}; the slot is given back once the handler returns. */
    public void submit(Execution e) {
        executions.add(e);
        pool.execute(() -> run(e));
    }

    /** Whether this worker already runs the task this token belongs to. */
    public boolean runs(String token) {
        return executions.holds(token);
    }

    private void run(Execution e) {
        e.runningOn(Thread.currentThread());
        try {
            if (e.isCancelled()) {
                return;
            }
            ActivityHandler handler = handlers.get(e.activityType());
            if (handler == null) {
                finish(e, null, Reasons.TERMINAL + " no handler for activity type '" + e.activityType() + "' on worker " + e.workerId());
                return;
            }
            finish(e, handler.handlePayload(e, EncodedPayload.of(e.task().getInput())), null);
        } catch (TerminalActivityException ex) {
            finish(e, null, Reasons.TERMINAL + " " + ex.getMessage());
        } catch (RetryableActivityException ex) {
            finish(e, null, Reasons.RETRYABLE + " " + ex.getMessage());
        } catch (Throwable ex) {
            finish(e, null, Reasons.RETRYABLE + " " + ex.getClass().getSimpleName() + ": " + ex.getMessage());
        } finally {
            executions.remove(e); // first, so the held executions never outnumber the slots taken
            slots.giveBack(1);
            Thread.interrupted(); // a stop or park interrupt must not leak into the pool's next task
        }
    }

    /** Reports the end unless Baton took the execution away or a drain parked it first. */
    private void finish(Execution e, EncodedPayload output, String failure) {
        if (!e.end(Execution.Phase.FINISHED)) {
            log.debug("{} attempt {} gen {} ended as {}; not reporting", e.site(), e.attempt(), e.generation(), e.phase());
            return;
        }
        if (failure == null) {
            events.completed(e, output);
        } else {
            events.failed(e, failure);
        }
    }
}
