package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.QUEUE;
import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.site;
import static dev.baton.streams.topology.SiteHarness.timeouts;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import dev.baton.events.HistoryKind;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.RetryPolicy;
import dev.baton.events.WorkerStatus;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the adversary of 2026-12-02 tried: each input must be an answer or a dead letter, and must not bend the rules. */
class HostileInputTest {

    private SiteHarness h = new SiteHarness();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void shouldAnswerADispatchOnTheWrongPartitionWithoutRunningIt() {
        h.close();
        h = SiteHarness.withInputPartitions(2);
        SiteKey elsewhere = siteOnPartition(1, 2);

        h.send(request(elsewhere, 1, "r1").build());

        assertThat(h.tasks()).as("nothing runs on a task that does not own the site").isEmpty();
        assertThat(h.siteState(elsewhere)).isEmpty();
        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(o.getReason()).startsWith("terminal: invalid dispatch: wrong partition: written to partition 0 of baton.dispatch, "
                    + "but its key maps to partition 1").contains("murmur2");
        });
        assertThat(h.historyKinds()).containsExactly(HistoryKind.INVALID_DISPATCH);
        assertThat(h.deadLetters()).singleElement().satisfies(d -> assertThat(d.getReason()).startsWith("wrong partition"));
    }

    @Test
    void shouldRefuseTimeoutsThatWouldOverflowAnInstant() {
        h.send(request(site("1"), 1, "r1").setTimeouts(timeouts(Long.MAX_VALUE, null, null, null)).build());
        h.send(request(site("2"), 1, "r2").setTimeouts(timeouts(-5L, null, null, null)).build());
        h.send(request(site("3"), 1, "r3").setRetryPolicy(new RetryPolicy(Long.MAX_VALUE, 2.0, Long.MAX_VALUE, 3, List.of())).build());

        assertThat(h.results()).extracting(o -> o.getReason()).containsExactly(
                "terminal: invalid dispatch: timeouts.scheduleToStartMillis must be > 0 and <= 315360000000 (10 years), was "
                        + Long.MAX_VALUE,
                "terminal: invalid dispatch: timeouts.scheduleToStartMillis must be > 0 and <= 315360000000 (10 years), was -5",
                "terminal: invalid dispatch: retryPolicy.initialIntervalMillis must be > 0 and <= 315360000000 (10 years), was "
                        + Long.MAX_VALUE);
        assertThat(h.tasks()).isEmpty();
    }

    @Test
    void shouldCountARegistrationFromTheFutureAsSeenNowSoItGoesStale() {
        h.registerWorker("w1", false, QUEUE); // a live worker, for contrast
        WorkerStatus forged = WorkerStatus.newBuilder().setWorkerId("ghost").setQueues(List.of(QUEUE)).setNodeLabels(List.of("n1"))
                .setCapacity(4).setInFlight(0).setDraining(false).setStartedAtMillis(0L).setLastSeenMillis(Long.MAX_VALUE).build();
        h.pipeWorkers("ghost", h.serdes.workerStatus().encode(BatonTopics.WORKERS, forged));

        h.advance(Duration.ofMillis(15_100)); // past worker.stale.ms: both registrations are stale now
        h.send(request(site("1"), 1, "r1").setNode("n1").setTimeouts(timeouts(1_000L, null, null, null)).build());
        h.advance(Duration.ofMillis(1_100));

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason())
                .startsWith("unavailable: unserved: no live worker with node 'n1'"));
    }

    @Test
    void shouldIgnoreARegistrationItCannotReadAndKeepCounting() {
        h.pipeWorkers("poison", new byte[] {0, 0, 15, 66, 63, 1, 2, 3}); // unknown schema id
        h.registerWorker("w1", false, QUEUE);

        h.send(request(site("1"), 1, "r1").setTimeouts(timeouts(1_000L, null, null, null)).build());
        h.advance(Duration.ofMillis(1_100));

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason()).startsWith("unavailable: saturated: 1 live"));
    }

    @Test
    void shouldNotLetAClockTickFromTheFutureVouchForLaterReports() {
        h.send(request(site("1"), 1, "r1").setTimeouts(timeouts(null, null, null, 1_000L)).build());
        h.report(h.tasks().get(0), dev.baton.events.WorkerEventKind.LEASED, "w1");
        h.pipeClockTick(Long.MAX_VALUE); // forged: "every report up to the end of time is read"
        h.history();

        h.advance(Duration.ofMillis(1_100));

        assertThat(h.clockTicks()).as("the app still asked for its own tick once the deadline passed").isNotEmpty();
        assertThat(h.historyKinds()).contains(HistoryKind.TRANSPORT_LOST);
    }

    /** A site whose key maps to {@code partition} of {@code count}. */
    private static SiteKey siteOnPartition(int partition, int count) {
        for (int i = 0; ; i++) {
            SiteKey s = site("p" + i);
            if (Utils.toPositive(Utils.murmur2(s.toBytes())) % count == partition) {
                return s;
            }
        }
    }
}
