package dev.baton.bench.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.events.HistoryEvent;
import dev.baton.events.Outcome;
import org.junit.jupiter.api.Test;

class SyntheticHistoryTest {

    private static final int RECORDS = 20_000;

    /** What a sink was handed: each history record as "site kind attempt", its time, and where outcomes fell. */
    private static final class Written implements SyntheticHistory.Sink {
        final List<String> sites = new ArrayList<>();
        final List<String> events = new ArrayList<>();
        final List<Long> times = new ArrayList<>();
        /** Per site (the outcome's site key): the number of history records written before its outcome. */
        final Map<String, Integer> outcomeAfter = new HashMap<>();
        /** Per workflow: the number of history records written up to and including its last. */
        final Map<String, Integer> lastEventAt = new HashMap<>();

        @Override
        public void history(byte[] key, HistoryEvent e) {
            String site = new String(key, StandardCharsets.UTF_8);
            sites.add(site);
            events.add(site + " " + e.getKind() + " " + e.getAttempt());
            times.add(e.getAtMillis());
            lastEventAt.put(e.getSite().getWorkflowId().toString(), sites.size());
        }

        @Override
        public void result(Outcome o) {
            outcomeAfter.put(o.getSite().getWorkflowId().toString(), sites.size());
        }

        /** Sites whose records are not all next to each other. */
        long interleavedSites() {
            Map<String, int[]> firstLastCount = new HashMap<>();
            for (int i = 0; i < sites.size(); i++) {
                int at = i;
                firstLastCount.merge(sites.get(i), new int[] {i, i, 1}, (a, b) -> new int[] {a[0], at, a[2] + 1});
            }
            return firstLastCount.values().stream().filter(f -> f[1] - f[0] + 1 != f[2]).count();
        }
    }

    private static Written generate(int activitiesPerSecond) {
        Written w = new Written();
        long results = SyntheticHistory.generate(RECORDS, activitiesPerSecond, w);
        assertThat(w.outcomeAfter).hasSize((int) results);
        // an outcome is published with its activity's last decision, never before it
        w.lastEventAt.forEach((workflow, last) -> assertThat(w.outcomeAfter.get(workflow)).as(workflow).isGreaterThanOrEqualTo(last));
        return w;
    }

    @Test
    void shouldWriteEachActivitysEventsBackToBackAtRateZero() {
        Written w = generate(0);
        assertThat(w.sites).hasSize(RECORDS);
        assertThat(w.interleavedSites()).isZero();
    }

    @Test
    void shouldInterleaveSitesInTimeOrderAsARunningPlatformWritesThem() {
        Written together = generate(0);
        Written w = generate(10_000);
        assertThat(w.sites).hasSize(RECORDS);
        // the same records, only the order differs
        assertThat(w.events).containsExactlyInAnyOrderElementsOf(together.events);
        for (int i = 1; i < w.times.size(); i++) {
            assertThat(w.times.get(i)).as("record %d is written in time order", i).isGreaterThanOrEqualTo(w.times.get(i - 1));
        }
        // at 10,000 activities/s every site's lease comes milliseconds after its dispatch, with other sites' events between
        long sites = w.sites.stream().distinct().count();
        assertThat(w.interleavedSites()).as("of %d sites", sites).isGreaterThan(sites * 9 / 10);
    }
}
