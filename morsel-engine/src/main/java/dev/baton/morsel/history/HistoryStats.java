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

        /** Two ids can spell one name (a failure whose reason is "completed"): their groups add up. */
        private Group add(Group other) {
            count += other.count;
            latencyMillis.add(other.latencyMillis);
            return this;
        }

        /** The latency percentile in ms, or "-" when no site of the group was answered. */
        public String percentile(double p) {
            return latencyMillis.getTotalCount() == 0 ? "-" : Long.toString(latencyMillis.getValueAtPercentile(p));
        }
    }

    /** The outcome group of a site not answered, beside the answers' outcome ids ({@link SiteQueries.SitesWithAnswers#outcome}). */
    private static final long OPEN = -1;

    private HistoryStats() {
    }

    /**
     * Groups the dispatched sites in scope. History and results are scanned as one job, and each
     * site is joined to its answer by dictionary id (the answers are sorted by request id); strings
     * are made once per group, not per site.
     */
    public static Map<String, Group> compute(HistoryLog log, HistoryLog.Scope scope, GroupBy by) {
        SiteQueries.SitesWithAnswers s = log.sitesWithAnswers(scope);
        Map<Long, Group> byId = new HashMap<>();
        long lastKey = 0;
        Group last = null; // sites in a row mostly share a group: found again without a boxed key
        for (int i = 0; i < s.sites().rows(); i++) {
            if (!s.dispatched(i)) {
                continue;
            }
            int a = s.answerOf(s.request(i));
            long key = switch (by) {
                case QUEUE -> s.queue(i);
                case TYPE -> s.type(i);
                case OUTCOME -> a < 0 ? OPEN : s.outcome(a);
            };
            Group g = last != null && key == lastKey ? last : byId.computeIfAbsent(key, k -> new Group());
            last = g;
            lastKey = key;
            g.count++;
            if (a >= 0) {
                g.latencyMillis.recordValue(Math.max(0, s.answeredAt(a) - s.firstDispatchAt(i)));
            }
        }
        Map<String, Group> groups = new HashMap<>();
        byId.forEach((id, g) -> groups.merge(name(id, by, s), g, Group::add));
        return groups;
    }

    /** A group's name as {@link HistoryLog.Answer#kind()} and the site's strings spell it. */
    private static String name(long id, GroupBy by, SiteQueries.SitesWithAnswers s) {
        if (by != GroupBy.OUTCOME) {
            return String.valueOf(s.ids().string(id));
        }
        return id == OPEN ? "(open)" : s.outcomeName(id);
    }
}
