package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * {@code ORDER BY ... LIMIT n} over an aggregate's rows ({@code [key, slot 0, slot 1, ...]}): the
 * first {@code limit} rows by the given columns, ties broken by the key so the answer is
 * deterministic. Keeps a heap of {@code limit} rows, so a top-10 over millions of groups costs
 * O(rows log 10) and no full sort.
 */
public final class SortLimit {

    /** One sort column: {@code 0} is the key, {@code 1 + s} is slot {@code s}. */
    public record Order(int column, boolean descending) {
        public static Order asc(int column) {
            return new Order(column, false);
        }

        public static Order desc(int column) {
            return new Order(column, true);
        }
    }

    private final Comparator<long[]> order;
    private final int limit;
    private final int maxColumn;

    public SortLimit(List<Order> orders, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, was " + limit);
        }
        Comparator<long[]> c = (a, b) -> 0;
        int widest = 0;
        for (Order o : orders) {
            if (o.column() < 0) {
                throw new IllegalArgumentException("sort column must be >= 0 (0 = the key), was " + o.column());
            }
            widest = Math.max(widest, o.column());
            Comparator<long[]> one = Comparator.comparingLong(r -> r[o.column()]);
            c = c.thenComparing(o.descending() ? one.reversed() : one);
        }
        this.order = c.thenComparingLong(r -> r[0]);
        this.limit = limit;
        this.maxColumn = widest;
    }

    /** The first {@code limit} rows of {@code result} in this order. */
    public List<long[]> apply(AggregateResult result) {
        if (limit == 0) {
            return List.of();
        }
        PriorityQueue<long[]> heap = new PriorityQueue<>(limit + 1, order.reversed());
        if (result.slots() < maxColumn) {
            throw new IllegalArgumentException("sort column " + maxColumn + " does not exist; rows have " + (result.slots() + 1) + " columns");
        }
        for (int r = 0; r < result.rows(); r++) {
            long[] row = result.row(r);
            heap.add(row);
            if (heap.size() > limit) {
                heap.poll();
            }
        }
        long[][] rows = heap.toArray(long[][]::new);
        Arrays.sort(rows, order);
        return new ArrayList<>(Arrays.asList(rows));
    }

}
