package dev.baton.testkit.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Times in milliseconds (dispatch to outcome, a rebalance), summarised as p50/p99/max. Thread-safe. */
public final class Latencies {

    private final ConcurrentLinkedQueue<Long> millis = new ConcurrentLinkedQueue<>();

    public void add(long ms) {
        millis.add(ms);
    }

    /** {@link #summary(List)} of the times added so far. */
    @Override
    public String toString() {
        return summary(new ArrayList<>(millis));
    }

    /** "n 12, p50 30 ms, p99 90 ms, max 95 ms" over the non-negative values (a -1 marks one that was never measured); "n 0" for none. */
    public static String summary(List<Long> values) {
        long[] v = values.stream().mapToLong(Long::longValue).filter(x -> x >= 0).sorted().toArray();
        if (v.length == 0) {
            return "n 0";
        }
        return String.format(Locale.ROOT, "n %d, p50 %d ms, p99 %d ms, max %d ms", v.length, v[(v.length - 1) / 2],
                v[(int) Math.ceil(v.length * 0.99) - 1], v[v.length - 1]);
    }
}
