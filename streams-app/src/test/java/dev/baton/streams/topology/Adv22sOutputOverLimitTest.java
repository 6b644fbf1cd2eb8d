package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.site;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.baton.events.ActivityTask;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (streams-app restarts), finding 2. A worker checks an output against its own
 * {@code max.payload.bytes} ({@code EventSender}: over it, a terminal {@code OutputTooLarge} failure). The streams app's
 * limit is its own setting: lowered on a restart while activities run (or simply set below the workers'), a completion
 * between the two limits was dead-lettered as an invalid report. The site kept its lease, the worker had finished, so
 * the heartbeat deadline took it for a transport loss and ran the handler again, every window, until
 * {@code transport-exhausted:} ("the activity may never have run") reached the caller: a healthy worker's result lost,
 * the activity run budget + 1 times, and the wrong reason. The harness's limit is 1,024 bytes.
 *
 * <p>Fixed on merge: a current-token completion over the limit is decided as the terminal {@code OutputTooLarge} failure
 * the worker would have sent, and the report is dead-lettered for the operator; a forged token changes nothing.
 */
class Adv22sOutputOverLimitTest {

    private final SiteHarness h = new SiteHarness();
    private final SiteKey site = site("big-output");

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void aCompletionOverTheAppsLimitEndsTheRunWithTheReasonNotATransportLoss() {
        h.send(request(site, 1, "r1").build());
        ActivityTask task = h.tasks().get(0);
        h.report(task, WorkerEventKind.LEASED, "w1");
        h.complete(task, "w1", "x".repeat(2_000)); // within a worker's default 512 KiB, over this app's 1,024

        assertThat(h.results()).as("the caller is answered at once, with the reason").singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(o.getReason()).startsWith("terminal: OutputTooLarge:").contains("max.payload.bytes 1024");
        });
        h.advance(Duration.ofSeconds(31)); // past the heartbeat window
        assertThat(h.tasks()).as("not redelivered: the run finished").isEmpty();
    }

    @Test
    void anOversizedCompletionWithAForgedTokenStillChangesNothing() {
        h.send(request(site, 1, "r1").build());
        ActivityTask task = h.tasks().get(0);
        h.report(task, WorkerEventKind.LEASED, "w1");
        String forged = "A".repeat(task.getToken().length());
        h.report(task, WorkerEventKind.COMPLETED, "w2", forged, SiteHarness.payload("x".repeat(2_000)), null);

        assertThat(h.results()).isEmpty();
        assertThat(h.siteState(site)).hasValueSatisfying(s -> assertThat(s.getState().name()).isEqualTo("LEASED"));
    }
}
