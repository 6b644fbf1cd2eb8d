package dev.baton.bench;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.HdrHistogram.Histogram;

/**
 * Where Baton's end-to-end time goes, hop by hop, from the timestamps its own events carry: the
 * streams app stamps history and outcomes when it processes, the worker stamps its reports. Every
 * process of the benchmark shares one clock. The streams app's clock is read once per poll loop, so
 * a few milliseconds can shift between neighbouring hops.
 */
final class HopBreakdown {

    /** One activity as the caller saw it: intended send time and receipt, wall-clock millis. */
    record Sample(long intendedMillis, long receivedMillis) {
    }

    private static final String[] HOPS = {"send -> dispatched", "-> leased at worker", "-> completed at worker", "-> resolved",
            "-> received by caller"};

    private final Set<String> sampledSites;
    private final Map<String, long[]> stamps = new HashMap<>();

    private HopBreakdown(Set<String> sampledSites) {
        this.sampledSites = sampledSites;
    }

    /**
     * Reads history, worker events and results once, keeping the stamps of the sampled sites only (the
     * topics also hold every warm-up and burst activity, millions of records); answers for any of
     * those samples afterwards.
     */
    static HopBreakdown read(String bootstrap, Set<String> sampledSites) {
        HopBreakdown b = new HopBreakdown(sampledSites);
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + bootstrap, Map.of())) {
            EventSerde<HistoryEvent> history = EventSerde.of(HistoryEvent.class, registry);
            EventSerde<WorkerEvent> events = EventSerde.of(WorkerEvent.class, registry);
            EventSerde<Outcome> outcomes = EventSerde.of(Outcome.class, registry);
            TopicScan.forEach(bootstrap, BatonTopics.HISTORY, r -> {
                HistoryEvent h = history.decode(r);
                if (h.getKind() == HistoryKind.DISPATCHED) {
                    b.stamp(SiteKey.of(h.getSite()), 0, h.getAtMillis());
                }
            });
            TopicScan.forEach(bootstrap, BatonTopics.WORKER_EVENTS, r -> {
                WorkerEvent e = events.decode(r);
                if (e.getKind() == WorkerEventKind.LEASED) {
                    b.stamp(SiteKey.of(e.getSite()), 1, e.getAtMillis());
                } else if (e.getKind() == WorkerEventKind.COMPLETED) {
                    b.stamp(SiteKey.of(e.getSite()), 2, e.getAtMillis());
                }
            });
            TopicScan.forEach(bootstrap, BatonTopics.RESULTS, r -> {
                Outcome o = outcomes.decode(r);
                if (!o.getUnmatched()) {
                    b.stamp(SiteKey.of(o.getSite()), 3, o.getAtMillis());
                }
            });
        }
        return b;
    }

    private void stamp(SiteKey site, int hop, long atMillis) {
        String key = site.asKey();
        if (sampledSites.contains(key)) {
            stamps.computeIfAbsent(key, k -> new long[] {-1, -1, -1, -1})[hop] = atMillis;
        }
    }

    /**
     * One line: p50 / p99 of each hop over the samples (keyed by site) whose every stamp was found; a run
     * without a {@code LEASED} event (a plain lease settled by its completion) counts as leased when it completed.
     */
    void print(PrintStream out, String label, Map<String, Sample> samples) {
        Histogram[] hops = new Histogram[HOPS.length];
        for (int i = 0; i < hops.length; i++) {
            hops[i] = new Histogram(3);
        }
        long leasedByCompletion = 0;
        for (Map.Entry<String, Sample> s : samples.entrySet()) {
            long[] t = stamps.get(s.getKey());
            if (t == null || t[0] < 0 || t[2] < 0 || t[3] < 0) {
                continue;
            }
            if (t[1] < 0) {
                // A plain lease's LEASED is deferred and never sent for a run that completes first: its completion leased it.
                t = new long[] {t[0], t[2], t[2], t[3]};
                leasedByCompletion++;
            }
            long[] at = {s.getValue().intendedMillis(), t[0], t[1], t[2], t[3], s.getValue().receivedMillis()};
            for (int i = 0; i < hops.length; i++) {
                hops[i].recordValue(Math.max(0, at[i + 1] - at[i]));
            }
        }
        StringBuilder line = new StringBuilder(String.format("%-14s %s (p50/p99 ms, n=%d):", "hops", label, hops[0].getTotalCount()));
        for (int i = 0; i < hops.length; i++) {
            line.append(String.format(" %s %d/%d", HOPS[i], hops[i].getValueAtPercentile(50), hops[i].getValueAtPercentile(99)));
            line.append(i < hops.length - 1 ? "," : "");
        }
        if (leasedByCompletion > 0) {
            line.append(String.format(" (%d leased by their completion)", leasedByCompletion));
        }
        out.println(line);
    }
}
