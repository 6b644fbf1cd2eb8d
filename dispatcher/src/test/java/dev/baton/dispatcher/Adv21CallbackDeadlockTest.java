package dev.baton.dispatcher;

import static dev.baton.dispatcher.DispatchClientHarness.CLIENT_ID;
import static dev.baton.dispatcher.DispatchClientHarness.request;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.dispatcher.internals.OutcomeEvents;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversary (adv21): a dispatch's future is completed on the client's one results thread, so every dependent stage
 * the caller attaches without an executor runs there. A caller that chains a second activity and waits for it
 * inside the stage ({@code dispatch(a).thenAccept(o -> dispatch(b).join())}, a sequential workflow written the
 * obvious way) blocks the only thread that could deliver b's outcome: b, and every other dispatch of the client,
 * is never answered (dispatch.timeout.ms is off by default). Nothing fails fast or says why; only the
 * UnmatchedResultHandler's javadoc says its calls run on the results thread. Contract: every caller gets exactly
 * one outcome; client misuse fails fast naming the constraint.
 */
class Adv21CallbackDeadlockTest {

    private DispatchClientHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aStageThatWaitsForAnotherDispatchDoesNotStarveTheClient() throws Exception {
        harness = DispatchClientHarness.start(Map.of());
        DispatchClient client = harness.client;
        AtomicReference<CompletableFuture<ActivityOutcome>> second = new AtomicReference<>();
        CompletableFuture<ActivityOutcome> first = client.dispatch(request().site("wf", "1", "a").build());
        CompletableFuture<Void> chained = first.thenAccept(o -> {
            CompletableFuture<ActivityOutcome> b = client.dispatch(request().site("wf", "1", "b").build());
            second.set(b);
            b.join(); // waits for b's outcome on the thread that delivers outcomes
        });

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.command(0).getRequestId(), CLIENT_ID).build());
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> second.get() != null);
        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.command(1).getRequestId(), CLIENT_ID).build());

        assertThat(second.get()).as("b's outcome, delivered").succeedsWithin(Duration.ofSeconds(10));
        chained.get(10, TimeUnit.SECONDS);
    }
}
