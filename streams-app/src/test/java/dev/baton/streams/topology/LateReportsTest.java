package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.retries;
import static dev.baton.streams.topology.SiteHarness.site;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.baton.events.ActivityTask;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Late reports of a superseded run: relayed to the callers of their own run only, never under a later run's request id. */
class LateReportsTest {

    private final SiteHarness h = new SiteHarness();
    private final SiteKey site = site("1");

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void shouldNotRelayASupersededAttemptsLateCompletionToTheRunThatTookOver() {
        h.send(request(site, 1, "caller-a").build());
        ActivityTask a = h.tasks().get(0);
        h.report(a, WorkerEventKind.LEASED, "w1");
        h.send(request(site, 2, "caller-b").build()); // takeover: caller-a is told superseded
        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getRequestId()).isEqualTo("caller-a"));
        ActivityTask b = h.tasks().get(0);
        h.complete(b, "w2", "B-output");
        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getRequestId()).isEqualTo("caller-b"));
        h.history();

        h.complete(a, "w1", "A-LATE-output");

        assertThat(h.results()).as("attempt 1 belongs to caller-a's run, which was answered; caller-b never asked for it").isEmpty();
        assertThat(h.history()).singleElement().satisfies(e -> {
            assertThat(e.getKind()).isEqualTo(HistoryKind.UNMATCHED_COMPLETION);
            assertThat(e.getReason()).contains("earlier run");
        });
    }

    @Test
    void shouldStillRelayALateCompletionOfAnEarlierAttemptOfTheSameRun() {
        h.send(request(site, 1, "r1").setRetryPolicy(retries(3, 100)).build());
        ActivityTask first = h.tasks().get(0);
        h.fail(first, "w1", "retryable: flaky");
        h.advance(Duration.ofMillis(300));
        ActivityTask second = h.tasks().get(0);
        h.complete(second, "w2", "ok");
        h.results();

        h.complete(first, "w1", "late-of-attempt-1");

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getUnmatched()).isTrue();
            assertThat(o.getRequestId()).isEqualTo("r1");
            assertThat(o.getAttempt()).isEqualTo(1);
        });
        assertThat(h.history()).extracting(HistoryEvent::getKind).contains(HistoryKind.UNMATCHED_COMPLETION);
    }
}
