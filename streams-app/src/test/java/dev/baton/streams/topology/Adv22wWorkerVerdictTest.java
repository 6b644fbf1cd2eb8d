package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.site;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.events.ActivityTask;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Adversary round 22 (worker lifecycle), finding 6, the streams app's half. A worker's report may fail its generation with
 * Baton's own verdicts ({@code lost:}, {@code superseded:}, {@code cancelled:}, {@code unavailable:},
 * {@code transport-exhausted:}): the site resolves with that reason, which the contract reserves for Baton's decisions
 * ({@code lost:} is by contract never final). The Java SDK now refuses them ({@code Adv22wForgedVerdictTest}); a worker
 * writing {@code baton.worker-events} itself (another language, or a hostile one) still can.
 *
 * <p>Fixed: a worker's reason whose prefix is neither {@code retryable:} nor {@code terminal:} is read as
 * {@code retryable: <reason>} ({@code Reasons.fromWorker}), in {@code WorkerEventRules} (failures and relays) and in the
 * reference model ({@code ReasonClass.normalizeWorkerReason}).
 */
class Adv22wWorkerVerdictTest {

    private final SiteHarness h = new SiteHarness();
    private final SiteKey site = site("v");

    @AfterEach
    void close() {
        h.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {Reasons.LOST, Reasons.SUPERSEDED, Reasons.CANCELLED, Reasons.UNAVAILABLE, Reasons.TRANSPORT_EXHAUSTED})
    void aWorkersFailureNeverCarriesBatonsOwnVerdict(String prefix) {
        h.send(request(site, 1, "r1").setRetryPolicy(SiteHarness.retries(1, 10)).build());
        ActivityTask task = h.tasks().get(0);
        h.report(task, WorkerEventKind.LEASED, "w1");
        h.fail(task, "w1", prefix + " forged by the worker");

        assertThat(h.results()).as("the caller's outcome").singleElement()
                .satisfies(o -> assertThat(o.getReason()).doesNotStartWith(prefix).startsWith(Reasons.RETRYABLE));
    }
}
