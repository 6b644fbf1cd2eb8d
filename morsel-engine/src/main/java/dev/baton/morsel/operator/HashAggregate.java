package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import dev.baton.morsel.scheduler.MorselScheduler;

/**
 * A hash aggregate: {@code GROUP BY key} (or no key: one group) with SUM, COUNT, MIN, MAX and
 * ARG_MAX ({@link #maxBy}) accumulators over longs. As a pipeline's sink each worker fills its own
 * {@link LongAggTable}; after the barrier {@link #result} merges the partials — serially when they are small, otherwise as
 * sorted runs merged by key range in parallel ({@link SortedRunMerge}), or through a given local hash exchange
 * ({@link AggregateExchange}). Sums and counts
 * are exact and associative, and so are the other kinds ({@link Combine}), so the answer does not
 * depend on the worker count or on which worker saw which rows.
 *
 * <p>Build with {@link #groupBy} or {@link #global}, add accumulators in slot order, then use it as
 * one pipeline's sink. Thread contract: {@link #consume} on worker threads, {@link #result} once
 * after the pipeline's barrier.
 */
public final class HashAggregate implements Sink {

    /** Partials with fewer groups than this in all merge on the caller's thread. */
    static final int SERIAL_MERGE_GROUPS = 1 << 15;

    /** One slot: COUNT (no input), or its input combined as {@code kind} says. */
    private record Accumulator(boolean count, Expr input, Combine kind) {
        Accumulator(boolean count, Expr input) {
            this(count, input, Combine.SUM);
        }

        boolean sums() {
            return kind == Combine.SUM;
        }
    }

    private final Expr key;
    private final List<Accumulator> accumulators = new ArrayList<>();
    private final int expectedGroups;
    private LongAggTable[] partials;
    private int[][] slots;
    /** The accumulator index of each SUM or COUNT slot, in slot order. */
    private int[] sumSlots;
    /** Per worker, per sum slot: the vector its input is evaluated into (all ones for a COUNT). */
    private long[][][] vectors;
    /** Per worker, per sum slot: the vector read for the current batch. */
    private long[][][] inputs;
    /** Per worker, per group of a small table: the batch's rows of that group ({@link #addSumsByGroup}). */
    private int[][][] groupRows;
    /** Per worker: how many rows {@link #groupRows} holds per group. */
    private int[][] groupCounts;
    /** Group number by slot base, for bases of the first {@link #SMALL_GROUPS} groups. */
    private int[] groupOfBase;
    /** Set by the worker that makes the answer's arrays ({@link #answerRoom}). */
    private final AtomicBoolean answerRoomClaimed = new AtomicBoolean();
    /** Arrays for the merged answer, made by a worker during the scan; {@code null} until then, or when none is made. */
    private volatile SortedRunMerge.AnswerRoom answerRoom;

    /** Tables of at most this many groups add their sums group by group ({@link #addSumsByGroup}). */
    static final int SMALL_GROUPS = 8;

    private HashAggregate(Expr key, int expectedGroups) {
        if (expectedGroups < 1) {
            throw new IllegalArgumentException("expectedGroups must be >= 1, was " + expectedGroups);
        }
        this.key = key;
        this.expectedGroups = expectedGroups;
    }

    /** Groups by {@code key}; {@code Long.MIN_VALUE} is not a valid key. */
    public static HashAggregate groupBy(Expr key, int expectedGroups) {
        return new HashAggregate(key, expectedGroups);
    }

    /** One group (key 0) over every row. */
    public static HashAggregate global() {
        return new HashAggregate(null, 1);
    }

    /** Adds {@code SUM(input)} as the next slot. */
    public HashAggregate sum(Expr input) {
        accumulators.add(new Accumulator(false, input));
        return this;
    }

    /** Adds {@code MIN(input)} as the next slot (a group with no row: {@code Long.MAX_VALUE}). */
    public HashAggregate min(Expr input) {
        accumulators.add(new Accumulator(false, input, Combine.MIN));
        return this;
    }

    /** Adds {@code MAX(input)} as the next slot (a group with no row: {@code Long.MIN_VALUE}). */
    public HashAggregate max(Expr input) {
        accumulators.add(new Accumulator(false, input, Combine.MAX));
        return this;
    }

    /**
     * Adds {@code ARG_MAX(value, order)} as the next two slots: the largest {@code order} of the
     * group, then {@code value} of the row that had it (on equal orders, the larger value). "The
     * latest X by offset" is {@code maxBy(offset, x)}; "the first" is {@code maxBy(-offset, x)}.
     */
    public HashAggregate maxBy(Expr order, Expr value) {
        accumulators.add(new Accumulator(false, order, Combine.ARG_MAX_ORDER));
        accumulators.add(new Accumulator(false, value, Combine.ARG_MAX_VALUE));
        return this;
    }

    /** Adds {@code COUNT(*)} as the next slot. */
    public HashAggregate count() {
        accumulators.add(new Accumulator(true, null));
        return this;
    }

    public int slots() {
        return accumulators.size();
    }

    private Combine[] combine() {
        Combine[] c = new Combine[accumulators.size()];
        for (int a = 0; a < c.length; a++) {
            c[a] = accumulators.get(a).kind();
        }
        return c;
    }

    /** Allocates one partial per worker; called by {@link ScanPipeline} when the pipeline is built. */
    void open(int workers) {
        if (accumulators.isEmpty()) {
            throw new IllegalStateException("an aggregate needs at least one accumulator (sum or count)");
        }
        partials = new LongAggTable[workers];
        slots = new int[workers][];
        sumSlots = IntStream.range(0, accumulators.size()).filter(a -> accumulators.get(a).sums()).toArray();
        vectors = new long[workers][sumSlots.length][];
        inputs = new long[workers][sumSlots.length][];
        groupRows = new int[workers][SMALL_GROUPS][0];
        groupCounts = new int[workers][SMALL_GROUPS];
        groupOfBase = new int[SMALL_GROUPS * slots()];
        for (int g = 0; g < SMALL_GROUPS; g++) {
            groupOfBase[g * slots()] = g;
        }
        for (int w = 0; w < workers; w++) {
            slots[w] = new int[0];
        }
        answerRoomClaimed.set(false);
        answerRoom = null;
    }

    /*
     * A worker's table is made by the worker itself, on its first batch: a table sized for GROUP BY
     * l_orderkey's share of 1.5M groups is tens of MB whose zeroing, made on the calling thread for
     * every worker, was a serial step before each run; a worker that gets no batch makes none (an
     * empty one is put in its place after the barrier).
     *
     * The merged answer's arrays are made the same way, by the first worker to make its table: the merge learns the
     * answer's size only after the scan, and made on the calling thread then (GROUP BY l_orderkey: 36 MB, zeroed) they
     * were a serial step between the scan's barrier and the merge's wave; made by a worker, the other worker reads the
     * morsels it would have read meanwhile. Sized for the expected groups; a larger answer is made after the counts.
     */
    private LongAggTable partial(int worker) {
        LongAggTable t = partials[worker];
        if (t == null) {
            t = partials[worker] = new LongAggTable(slots(), share(), combine());
            if (partials.length > 1 && expectedGroups >= SERIAL_MERGE_GROUPS && answerRoomClaimed.compareAndSet(false, true)) {
                answerRoom = SortedRunMerge.AnswerRoom.of(expectedGroups, slots());
            }
        }
        return t;
    }

    /*
     * A worker's share of the groups, with a quarter more room when there are several: stealing hands one worker more
     * than its even share (lineitem's 34 morsels split 17 to 17 still give one worker 374 pages of 733), and one group
     * past a table's size doubles its arrays, a copy of tens of MB on that worker's critical path.
     */
    private int share() {
        int workers = partials.length;
        long share = workers == 1 ? expectedGroups : (long) expectedGroups * 5 / (4L * workers);
        return (int) Math.max(1, Math.min(share, expectedGroups));
    }

    @Override
    public void consume(int worker, Batch b) {
        int n = b.selected();
        if (n == 0) {
            return;
        }
        LongAggTable table = partial(worker);
        if (key == null) {
            consumeGlobal(table, b, n);
            return;
        }
        int[] s = slots[worker];
        if (s.length < n) {
            s = slots[worker] = new int[b.rows()];
        }
        groupSlots(table, b, s, n);
        long[] values = table.values(); // after the groups are in: slot bases never move, the array may have grown
        if (table.size() <= SMALL_GROUPS) {
            addSumsByGroup(worker, b, s, n, values, table.size());
        } else {
            addSums(worker, b, s, n, values);
        }
        for (int a = 0; a < accumulators.size(); a++) {
            if (!accumulators.get(a).sums()) {
                a = consumeCombined(b, s, n, values, a);
            }
        }
    }

    /*
     * Every SUM and COUNT slot in few loops over the rows, not one pass per slot: rows of one group
     * follow each other (Q1 has four groups, clustered keys repeat), and a pass per slot would wait
     * on each add to the same accumulator before the next (a chain of load-add-store through memory);
     * one row's slots are independent, so a loop over several overlaps them. The slots go in blocks
     * of six, four, two and one, each block's vectors and offsets held in locals: a generic inner loop
     * over the slots (load the slot's vector, its offset, check both) cost Q1 twice the fused loop's
     * adds. One block beats two: on 8,192 rows of four random groups, six sums in one loop took
     * 3.5-3.7 ns a row, four and then two more ~5.5, one pass per slot 9-11 (a micro, load ~10).
     */
    private void addSums(int worker, Batch b, int[] s, int n, long[] values) {
        int m = sumSlots.length;
        long[][] in = inputs[worker];
        for (int t = 0; t < m; t++) {
            in[t] = input(worker, t, b);
        }
        int[] sel = b.selection();
        int[] at = sumSlots;
        int t = 0;
        for (; t + 6 <= m; t += 6) {
            addSix(sel, s, n, values, in[t], at[t], in[t + 1], at[t + 1], in[t + 2], at[t + 2], in[t + 3], at[t + 3],
                    in[t + 4], at[t + 4], in[t + 5], at[t + 5]);
        }
        if (t + 4 <= m) {
            addFour(sel, s, n, values, in[t], at[t], in[t + 1], at[t + 1], in[t + 2], at[t + 2], in[t + 3], at[t + 3]);
            t += 4;
        }
        if (t + 2 <= m) {
            addTwo(sel, s, n, values, in[t], at[t], in[t + 1], at[t + 1]);
            t += 2;
        }
        if (t < m) {
            addOne(sel, s, n, values, in[t], at[t]);
        }
    }

    /*
     * A table of few groups (Q1 has four) adds group by group instead: one pass deals the selected
     * rows into a list per group, then each sum is a loop over one group's rows that adds into a
     * register and stores once. No add waits on the previous row's store to the same accumulator (the
     * chain addSix pays whenever consecutive rows share a group), a source column is summed from its
     * narrow page without being widened first (NarrowColumn.sum), and a COUNT is the list's length.
     */
    private void addSumsByGroup(int worker, Batch b, int[] s, int n, long[] values, int groups) {
        int[][] rows = groupRows[worker];
        int[] count = groupCounts[worker];
        if (rows[0].length < n) {
            for (int g = 0; g < SMALL_GROUPS; g++) {
                rows[g] = new int[b.rows()];
            }
        }
        Arrays.fill(count, 0);
        int[] sel = b.selection();
        int[] groupOf = groupOfBase;
        for (int j = 0; j < n; j++) {
            int g = groupOf[s[j]];
            rows[g][count[g]++] = sel[j];
        }
        int width = slots();
        for (int t = 0; t < sumSlots.length; t++) {
            int at = sumSlots[t];
            Accumulator acc = accumulators.get(at);
            if (acc.count()) {
                for (int g = 0; g < groups; g++) {
                    values[g * width + at] += count[g];
                }
            } else if (acc.input() instanceof ColumnRef c && c.source()) {
                NarrowColumn v = b.narrow(c.index());
                for (int g = 0; g < groups; g++) {
                    if (count[g] > 0) {
                        values[g * width + at] += v.sum(rows[g], count[g]);
                    }
                }
            } else {
                long[] x = input(worker, t, b);
                for (int g = 0; g < groups; g++) {
                    values[g * width + at] += sum(x, rows[g], count[g]);
                }
            }
        }
    }

    private static long sum(long[] x, int[] rows, int n) {
        long total = 0;
        for (int k = 0; k < n; k++) {
            total += x[rows[k]];
        }
        return total;
    }

    private static void addSix(int[] sel, int[] s, int n, long[] values, long[] x0, int a0, long[] x1, int a1,
            long[] x2, int a2, long[] x3, int a3, long[] x4, int a4, long[] x5, int a5) {
        for (int j = 0; j < n; j++) {
            int i = sel[j];
            int base = s[j];
            values[base + a0] += x0[i];
            values[base + a1] += x1[i];
            values[base + a2] += x2[i];
            values[base + a3] += x3[i];
            values[base + a4] += x4[i];
            values[base + a5] += x5[i];
        }
    }

    private static void addFour(int[] sel, int[] s, int n, long[] values,
            long[] x0, int a0, long[] x1, int a1, long[] x2, int a2, long[] x3, int a3) {
        for (int j = 0; j < n; j++) {
            int i = sel[j];
            int base = s[j];
            values[base + a0] += x0[i];
            values[base + a1] += x1[i];
            values[base + a2] += x2[i];
            values[base + a3] += x3[i];
        }
    }

    private static void addTwo(int[] sel, int[] s, int n, long[] values, long[] x0, int a0, long[] x1, int a1) {
        for (int j = 0; j < n; j++) {
            int i = sel[j];
            int base = s[j];
            values[base + a0] += x0[i];
            values[base + a1] += x1[i];
        }
    }

    private static void addOne(int[] sel, int[] s, int n, long[] values, long[] x0, int a0) {
        for (int j = 0; j < n; j++) {
            values[s[j] + a0] += x0[sel[j]];
        }
    }

    /** The row-indexed values sum slot {@code t} adds: a computed column as it lies, else evaluated into the worker's own vector. */
    private long[] input(int worker, int t, Batch b) {
        Accumulator acc = accumulators.get(sumSlots[t]);
        long[][] own = vectors[worker];
        if (own[t] == null || own[t].length < b.rows()) {
            own[t] = new long[Math.max(b.rows(), b.selection().length)];
            if (acc.count()) {
                Arrays.fill(own[t], 1);
            }
        }
        return acc.count() ? own[t] : b.vector(acc.input(), own[t], 2);
    }

    /** Slot base per selected position. */
    private void groupSlots(LongAggTable table, Batch b, int[] s, int n) {
        table.slotBases(b.vector(key, b.scratch(0), 2), b.selection(), n, s);
    }

    /**
     * Folds slot {@code a} (a MIN, a MAX, or the order of an ARG_MAX pair with its value) of every
     * selected row into its group at {@code s[j]}; returns the last slot it filled.
     */
    private int consumeCombined(Batch b, int[] s, int n, long[] values, int a) {
        Accumulator acc = accumulators.get(a);
        int[] sel = b.selection();
        long[] v = b.scratch(1);
        acc.input().eval(b, v, 3);
        switch (acc.kind()) {
            case MIN -> { for (int j = 0; j < n; j++) { values[s[j] + a] = Math.min(values[s[j] + a], v[sel[j]]); } }
            case MAX -> { for (int j = 0; j < n; j++) { values[s[j] + a] = Math.max(values[s[j] + a], v[sel[j]]); } }
            case ARG_MAX_ORDER -> {
                long[] w = b.scratch(2);
                accumulators.get(a + 1).input().eval(b, w, 3);
                for (int j = 0; j < n; j++) {
                    int at = s[j] + a;
                    long order = v[sel[j]];
                    long value = w[sel[j]];
                    if (order > values[at] || order == values[at] && value > values[at + 1]) {
                        values[at] = order;
                        values[at + 1] = value;
                    }
                }
                return a + 1;
            }
            default -> throw new IllegalStateException("slot " + a + " of kind " + acc.kind() + " is not folded here");
        }
        return a;
    }

    private void consumeGlobal(LongAggTable table, Batch b, int n) {
        int base = table.slotBase(0);
        long[] values = table.values();
        int[] sel = b.selection();
        int[] same = null;
        for (int a = 0; a < accumulators.size(); a++) {
            Accumulator acc = accumulators.get(a);
            long total = 0;
            if (!acc.sums()) {
                if (same == null) {
                    same = new int[n];
                    Arrays.fill(same, base);
                }
                a = consumeCombined(b, same, n, values, a);
                continue;
            }
            if (acc.count()) {
                total = n;
            } else if (acc.input() instanceof ColumnRef c && c.source()) {
                total = b.narrow(c.index()).sum(sel, n);
            } else if (acc.input() instanceof ColumnRef c) {
                long[] v = b.computed(c.index());
                for (int j = 0; j < n; j++) {
                    total += v[sel[j]];
                }
            } else {
                long[] v = b.scratch(1);
                acc.input().eval(b, v, 2);
                for (int j = 0; j < n; j++) {
                    total += v[sel[j]];
                }
            }
            values[base + a] += total;
        }
    }

    /**
     * The merged answer, keys ascending. Call once, after the pipeline's barrier. Large partials
     * merge as sorted runs cut into key ranges, in parallel ({@link SortedRunMerge}).
     */
    public AggregateResult result(MorselScheduler scheduler) {
        checkRan();
        if (serialMerge()) {
            return mergeSerially();
        }
        return SortedRunMerge.merge(scheduler, partials, slots(), partials[0].combine(), answerRoom);
    }

    /** The merged answer through {@code exchange} (partitions by key hash, hot ones spilling) when the partials are large. */
    public AggregateResult result(MorselScheduler scheduler, AggregateExchange exchange) {
        checkRan();
        if (serialMerge()) {
            return mergeSerially();
        }
        return exchange.merge(scheduler, partials, slots());
    }

    private void checkRan() {
        if (partials == null) {
            throw new IllegalStateException("the aggregate has not been run: use it as a pipeline's sink first");
        }
        for (int w = 0; w < partials.length; w++) {
            if (partials[w] == null) {
                partials[w] = new LongAggTable(slots(), 1, combine());
            }
        }
    }

    private boolean serialMerge() {
        long groups = 0;
        for (LongAggTable t : partials) {
            groups += t.size();
        }
        return groups < SERIAL_MERGE_GROUPS || partials.length == 1;
    }

    private AggregateResult mergeSerially() {
        for (int w = 1; w < partials.length; w++) {
            partials[0].mergeFrom(partials[w]);
        }
        return partials[0].sorted();
    }
}
