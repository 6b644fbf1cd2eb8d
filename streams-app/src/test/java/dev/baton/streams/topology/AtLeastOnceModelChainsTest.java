package dev.baton.streams.topology;

import dev.baton.events.Timeouts;
import dev.baton.events.WorkerEventKind;
import dev.baton.streams.model.SiteModel.SiteView;
import dev.baton.streams.topology.SiteMachineWorld.TokenChoice;
import org.junit.jupiter.api.Test;

/**
 * Chains the at-least-once model check ({@link SiteMachineProperties}) failed on, shrunk and replayed
 * step by step against the model and the real topology together; each test names its seed.
 */
class AtLeastOnceModelChainsTest {

    /**
     * Seed 6111126062562699159: a retry's backoff ends at the instant the schedule-to-close does. Under
     * at-least-once both fire from deadline records in one pass, the schedule-to-close first, so the run
     * ends at attempt 2; the model fired the retry first (it waited for a clock tick only for the
     * schedule-to-close, as exactly-once does) and ended it at attempt 3. From then on the model's row
     * expired earlier than the real one, and a request it took for a new run's was refused by the old
     * row, then started a run when sent again: two outcomes, from a model that was wrong.
     */
    @Test
    void aScheduleToCloseDueWithARetryEndsTheRunBeforeTheRetry() {
        try (SiteMachineWorld w = new SiteMachineWorld(true)) {
            w.send(w.request("s0", 1).setIdempotencyKey("other-key").setTimeouts(new Timeouts(null, null, 4_000L, null)).build());
            w.commit();
            advance(w, 5, 15, 1);
            w.report("s0", WorkerEventKind.FAILED, TokenChoice.NEWEST, 0, "w1", "retryable: boom", false); // backoff 300 ms
            advance(w, 1, 5, 5, 1, 1);
            w.report("s0", WorkerEventKind.FAILED, TokenChoice.NEWEST, 0, "w1", "retryable: boom", false); // backoff 600 ms: due with schedule-to-close
            advance(w, 15, 5, 5);
            SiteView v = w.view("s0");
            w.send(w.request("s0", v.callerAttempt() + 2 % Math.max(1, v.attempt() - v.callerAttempt() + 1)).build());
            w.commit();
            w.advance(5);
            w.report("s0", WorkerEventKind.COMPLETED, TokenChoice.NEWEST, 0, "w1", null, false);
            advance(w, 5, 5, 1, 15, 15, 1, 1, 5); // past the dedupe window
            w.send(w.request("s0", 1).setIdempotencyKey("other-key").build());
            w.commit();
            advance(w, 5, 1, 5, 1);
            w.resend(0, false);
            SiteView now = w.view("s0");
            w.send(w.request("s0", now == null ? 1 : now.attempt() + 1).build());
            w.commit();
            w.finish();
        }
    }

    /** Advances as the chain did: one action per entry (each commits first). */
    private static void advance(SiteMachineWorld w, int... steps) {
        for (int n : steps) {
            w.advance(n);
        }
    }
}
