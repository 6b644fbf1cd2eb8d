package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.retries;
import static dev.baton.streams.topology.SiteHarness.site;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.baton.events.ActivityTask;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every caller of a run, the first and those who joined it, gets exactly one outcome, whatever becomes of the run. */
class JoinedCallersTest {

    private final SiteHarness h = new SiteHarness();
    private final SiteKey site = site("1");

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void shouldAnswerAJoinedCallerWithTheOutcomeOfTheRetry() {
        h.send(request(site, 1, "caller-1").setRetryPolicy(retries(3, 100)).build());
        h.send(request(site, 1, "caller-2").build()); // joins while attempt 1 runs
        h.fail(h.tasks().get(0), "w1", "retryable: flaky");
        h.advance(Duration.ofMillis(200));
        ActivityTask second = h.tasks().get(0);
        assertThat(second.getAttempt()).isEqualTo(2);

        h.complete(second, "w1", "done");

        Map<String, Outcome> byCaller = byRequest(h.results());
        assertThat(byCaller).containsOnlyKeys("caller-1", "caller-2");
        assertThat(byCaller.values()).allSatisfy(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED);
            assertThat(o.getAttempt()).isEqualTo(2);
            assertThat(o.getOutput()).isEqualTo(SiteHarness.payload("done"));
        });
    }

    @Test
    void shouldAnswerEveryCallerOfATakenOverAttemptSuperseded() {
        h.send(request(site, 1, "caller-1").build());
        h.send(request(site, 1, "caller-2").build());
        h.tasks();

        h.send(request(site, 2, "caller-3").build());

        Map<String, Outcome> byCaller = byRequest(h.results());
        assertThat(byCaller).containsOnlyKeys("caller-1", "caller-2");
        assertThat(byCaller.values()).allSatisfy(o -> {
            assertThat(o.getReason()).startsWith("superseded:").contains("attempt 2");
            assertThat(o.getAttempt()).isEqualTo(1);
        });
        h.complete(h.tasks().get(0), "w1", "two");
        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getRequestId()).isEqualTo("caller-3"));
    }

    @Test
    void shouldAnswerEveryCallerOfACancelledRun() {
        h.send(request(site, 1, "caller-1").build());
        h.send(request(site, 1, "caller-2").build());

        h.cancel(site);

        Map<String, Outcome> byCaller = byRequest(h.results());
        assertThat(byCaller).containsOnlyKeys("caller-1", "caller-2");
        assertThat(byCaller.values()).allSatisfy(o -> assertThat(o.getReason()).startsWith("cancelled:"));
    }

    @Test
    void shouldLetACallerResendingItsFirstAttemptAfterAPolicyRetryJoinTheRun() {
        h.send(request(site, 1, "caller-1").setRetryPolicy(retries(3, 100)).build());
        h.fail(h.tasks().get(0), "w1", "retryable: flaky");
        h.advance(Duration.ofMillis(200));
        ActivityTask second = h.tasks().get(0);

        h.send(request(site, 1, "caller-1").build()); // the same request, sent again
        h.send(request(site, 1, "caller-2").build()); // another caller naming attempt 1

        assertThat(h.results()).as("neither is refused").isEmpty();
        h.complete(second, "w1", "done");
        Map<String, Outcome> byCaller = byRequest(h.results());
        assertThat(byCaller).containsOnlyKeys("caller-1", "caller-2");
        assertThat(byCaller.values()).allSatisfy(o -> assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED));
    }

    @Test
    void shouldGiveARequestSentTwiceOneOutcome() {
        h.send(request(site, 1, "caller-1").build());
        h.send(request(site, 1, "caller-2").build());
        h.send(request(site, 1, "caller-2").build());

        h.complete(h.tasks().get(0), "w1", "done");

        assertThat(h.results()).extracting(Outcome::getRequestId).containsExactlyInAnyOrder("caller-1", "caller-2");
    }

    @Test
    void shouldGiveASupersededRequestSentAgainTheSameAnswer() {
        h.send(request(site, 1, "caller-1").build());
        h.send(request(site, 2, "caller-2").build());
        Outcome first = h.results().get(0);

        h.send(request(site, 1, "caller-1").build());

        assertThat(h.results()).singleElement().satisfies(again -> {
            assertThat(again.getRequestId()).isEqualTo("caller-1");
            assertThat(again.getReason()).isEqualTo(first.getReason()).startsWith("superseded: by attempt 2");
            assertThat(again.getAttempt()).isEqualTo(first.getAttempt());
        });
    }

    @Test
    void shouldTreatARequestIdSentAgainAtAHigherAttemptAsTheSameRequest() {
        h.send(request(site, 1, "caller-1").build());
        ActivityTask task = h.tasks().get(0);

        h.send(request(site, 2, "caller-1").build());

        assertThat(h.tasks()).as("no takeover by a copy of a waiting request").isEmpty();
        h.complete(task, "w1", "done");
        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getRequestId()).isEqualTo("caller-1");
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED);
        });
    }

    @Test
    void shouldGiveAJoinedCallerSentAgainAfterTheRunResolvedTheRunsAnswer() {
        h.send(request(site, 1, "caller-1").setRetryPolicy(retries(3, 100)).build());
        h.send(request(site, 1, "caller-2").build());
        h.fail(h.tasks().get(0), "w1", "retryable: flaky");
        h.advance(Duration.ofMillis(200));
        h.complete(h.tasks().get(0), "w1", "done");
        h.results();

        h.send(request(site, 1, "caller-2").build()); // attempt 1, below the run's attempt 2, but the same request

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED);
            assertThat(o.getAttempt()).isEqualTo(2);
        });
    }

    private static Map<String, Outcome> byRequest(List<Outcome> outcomes) {
        assertThat(outcomes).extracting(Outcome::getRequestId).doesNotHaveDuplicates();
        return outcomes.stream().collect(Collectors.toMap(Outcome::getRequestId, Function.identity()));
    }
}
