package dev.baton.morsel.history;

import java.util.HashMap;
import java.util.Map;

import org.HdrHistogram.Histogram;

/** Sites grouped by queue, activity type or outcome, with dispatch-to-outcome latency percentiles. */
public final class HistoryStats {

    public enum GroupBy { QUEUE, TYPE, OUTCOME }

    /** One group: its sites, and the latency of those that were answered. */
    public static final class Group {
        private final Histogram latencyMillis = new Histogram(3);
        private long count;

        public long count() {
            return count;
        }

        /** The latency percentile in ms, or "-" when no site of the group was answered. */
        public String percentile(double p) {
            return latencyMillis.getTotalCount() == 0 ? "-" : Long.toString(latencyMillis.getValueAtPercentile(p));
        }
    }

    private HistoryStats() {
    }

    public static Map<String, Group> compute(HistoryLog log, HistoryLog.Scope scope, GroupBy by) {
        Map<String, SiteTrail> sites = log.sites(scope);
        Map<String, HistoryLog.Answer> answers = log.answers();
        Map<String, Group> groups = new HashMap<>();
        for (SiteTrail t : sites.values()) {
            if (!t.dispatched()) {
                continue;
            }
            HistoryLog.Answer a = answers.get(t.requestId);
            String key = switch (by) {
                case QUEUE -> String.valueOf(t.queue);
                case TYPE -> String.valueOf(t.activityType);
                case OUTCOME -> a == null ? "(open)" : a.kind();
            };
            Group g = groups.computeIfAbsent(key, k -> new Group());
            g.count++;
            if (a != null) {
                g.latencyMillis.recordValue(Math.max(0, a.atMillis() - t.firstDispatchAt));
            }
        }
        return groups;
    }
}
