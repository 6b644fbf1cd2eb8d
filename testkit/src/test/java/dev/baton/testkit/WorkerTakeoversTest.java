package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.SiteRef;
import org.junit.jupiter.api.Test;

class WorkerTakeoversTest {

    private static final long KILL = 10_000;

    @Test
    void shouldTimeEachOpenLeaseOfTheKilledWorkerToItsFirstLeaseElsewhere() {
        List<HistoryEvent> history = List.of(
                event("a", HistoryKind.LEASED, "w1", 9_000), event("a", HistoryKind.LEASED, "w2", 16_000),  // taken over after 6 s
                event("b", HistoryKind.LEASED, "w1", 9_500), event("b", HistoryKind.LEASED, "w3", 12_000),  // after 2 s
                event("c", HistoryKind.LEASED, "w1", 8_000), event("c", HistoryKind.COMPLETED, "w1", 9_000), // closed before the kill
                event("d", HistoryKind.LEASED, "w2", 9_000),                                                   // another worker's
                event("e", HistoryKind.LEASED, "w1", 9_900), event("e", HistoryKind.TIMED_OUT, null, 20_000)); // never leased again
        List<WorkerTakeovers.Takeover> t = WorkerTakeovers.measure(history, List.of(new WorkerTakeovers.Kill("w1", KILL)));
        assertThat(t).singleElement().satisfies(one -> {
            assertThat(one.leasesHeld()).isEqualTo(3);
            assertThat(one.leasedElsewhere()).isEqualTo(2);
            assertThat(one.maxMillis()).isEqualTo(6_000);
            assertThat(one.medianMillis()).isEqualTo(6_000); // the upper median of {2000, 6000}
        });
    }

    @Test
    void shouldNotCountALeaseTakenAfterTheKill() {
        List<HistoryEvent> history = List.of(event("a", HistoryKind.LEASED, "w1", KILL + 1), event("a", HistoryKind.LEASED, "w2", KILL + 5_000));
        assertThat(WorkerTakeovers.measure(history, List.of(new WorkerTakeovers.Kill("w1", KILL))).get(0).leasesHeld()).isZero();
    }

    private static HistoryEvent event(String workflow, HistoryKind kind, String worker, long atMillis) {
        return HistoryEvent.newBuilder().setKind(kind).setSite(new SiteRef("it", workflow, "1")).setAttempt(1).setWorkerId(worker)
                .setAtMillis(atMillis).build();
    }
}
