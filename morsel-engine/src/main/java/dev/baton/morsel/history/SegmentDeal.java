package dev.baton.morsel.history;

import java.util.Arrays;

import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.Batch;
import dev.baton.morsel.operator.Combine;
import dev.baton.morsel.operator.CombinePlan;
import dev.baton.morsel.operator.RunCombine;
import dev.baton.morsel.operator.Sink;
import dev.baton.morsel.scheduler.MorselScheduler;

/**
 * A radix deal by dictionary segment: the sink of an aggregate whose key is a string ({@link PageStrings}), fed by a
 * {@link RunCombine}. Each worker writes each row (its key's bytes and hash, its slots) sequentially into one of its
 * buckets, the bucket being the {@link StringIds} segment the key belongs to ({@link StringIds#segmentOf}); nothing is
 * looked up per row. After the barrier {@link #result} builds the answer bucket by bucket ({@link SegmentBuild}), with
 * tables the size of one segment's share. A key met again in the same page does not make another row: its row is
 * folded into the one its first row of the page made, as the build would combine them, so a site whose events lie
 * among other sites' (as a running platform writes them) costs a row per page, not per record.
 *
 * <p>Why: probing one dictionary and one aggregate of millions of entries per record costs a few dependent cache
 * misses each; written in order and built by segment, the same work fits in the cache (docs/decisions.md, "Replay's
 * sites scan bucketed"). Thread contract: {@link #consume} on worker threads, {@link #result} once after the barrier.
 */
final class SegmentDeal implements Sink {

    /** One bucket per dictionary segment, and one more for rows whose key is null. */
    static final int BUCKETS = StringIds.SEGMENTS + 1;
    static final int NULL_BUCKET = StringIds.SEGMENTS;

    private final RunCombine runs;
    private final PageStrings[] strings;
    private final int bytesEach;
    private final int expectedRows;
    /** Per worker, per bucket; a worker makes its own on its first batch. */
    private final DealtRows[][] buckets;
    /** The slot that holds a second string (a site's request id), or -1: its values are references into {@link #slotStrings}. */
    private final int stringSlot;
    private final PageStrings[] slotStrings;
    /** Per worker, per segment: the slot strings dealt (no slots of their own); a row's handle is {@link #handle}. */
    private final DealtRows[][] slotBuckets;
    /** Per worker, per segment, per slot string dealt: its segment-local index, once {@link SegmentBuild} has interned them. */
    int[][][] slotLocals;
    /** How each slot combines ({@link RunCombine#combine}): the fold's and the build's. */
    private final Combine[] combine;
    private final CombinePlan fold;
    /** Per worker: a row being folded into one dealt before, its slots gathered from the batch's columns. */
    private final long[][] folding;
    /**
     * Per worker, per entry of its key strings' page ({@link PageStrings#entry}): the row the entry's key made in its
     * segment's bucket, valid where {@link #dealtPages} holds this page's number (0: none; pages are numbered from 1).
     */
    private final int[][] dealtRows;
    private final long[][] dealtPages;

    /**
     * @param strings      each worker's page strings, which the key column refers to
     * @param expectedRows rows expected in all (after the run combine), for the buckets' first size
     * @param bytesEach    the expected length of a key
     */
    SegmentDeal(RunCombine runs, PageStrings[] strings, int expectedRows, int bytesEach) {
        this(runs, strings, expectedRows, bytesEach, -1, null);
    }

    /**
     * As {@link #SegmentDeal(RunCombine, PageStrings[], int, int)}, slot {@code stringSlot} holding a second string per row
     * (a reference into {@code slotStrings}, or {@link PageStrings#NULL}): its bytes are dealt by their own segment and
     * interned there before the rows are built, and the answer's slot holds its dictionary id ({@link StringIds#NULL} for
     * null). The slot must be a value of an ARG_MAX whose orders never tie between different rows.
     */
    SegmentDeal(RunCombine runs, PageStrings[] strings, int expectedRows, int bytesEach, int stringSlot, PageStrings[] slotStrings) {
        this.runs = runs;
        this.strings = strings;
        this.bytesEach = bytesEach;
        this.expectedRows = expectedRows;
        this.buckets = new DealtRows[strings.length][];
        this.stringSlot = stringSlot;
        this.slotStrings = slotStrings;
        this.slotBuckets = new DealtRows[strings.length][];
        this.combine = runs.combine();
        this.fold = CombinePlan.of(combine, runs.slots());
        this.folding = new long[strings.length][runs.slots()];
        this.dealtRows = new int[strings.length][];
        this.dealtPages = new long[strings.length][];
    }

    /** A dealt slot string's handle: 0 for null, else its worker, segment and row in {@link #slotBuckets}, plus one. */
    private static long handle(int worker, int segment, int row) {
        return ((long) worker << 40 | (long) segment << 32 | row) + 1;
    }

    boolean hasStringSlot() {
        return stringSlot >= 0;
    }

    int stringSlot() {
        return stringSlot;
    }

    /** Every worker's slot strings of segment {@code k}, indexed by worker ({@code null} for a worker that dealt none). */
    DealtRows[] slotBucketsOf(int k) {
        DealtRows[] b = new DealtRows[slotBuckets.length];
        for (int w = 0; w < b.length; w++) {
            b[w] = slotBuckets[w] == null ? null : slotBuckets[w][k];
        }
        return b;
    }

    /** The dictionary id of a dealt slot string's handle, once its segment is interned. */
    long idOfHandle(long handle) {
        if (handle == 0) {
            return StringIds.NULL;
        }
        long h = handle - 1;
        int segment = (int) (h >>> 32) & 0xff;
        return StringIds.idOf(segment, slotLocals[(int) (h >>> 40)][segment][(int) h]);
    }

    @Override
    public void consume(int worker, Batch b) {
        DealtRows[] mine = buckets(worker);
        int n = b.selected();
        int[] sel = b.selection();
        long[] keys = b.computed(runs.key().index());
        int slots = runs.slots();
        long[][] v = new long[slots][];
        for (int s = 0; s < slots; s++) {
            v[s] = b.computed(runs.slot(s).index());
        }
        PageStrings page = strings[worker];
        byte[] bytes = page.bytes();
        int[] dealtRow = dealtRows(worker, page.entries());
        long[] dealtPage = dealtPages[worker];
        long pageNumber = page.page();
        for (int j = 0; j < n; j++) {
            int i = sel[j];
            long ref = keys[i];
            int row;
            DealtRows into;
            if (ref == PageStrings.NULL) {
                into = mine[NULL_BUCKET];
                row = into.add(0, bytes, 0, 0);
            } else {
                int hash = page.hash(ref);
                into = mine[StringIds.segmentOf(hash)];
                int entry = page.entry(ref);
                if (dealtPage[entry] == pageNumber) {
                    fold(worker, v, i, into, dealtRow[entry]);
                    continue;
                }
                row = into.add(hash, bytes, PageStrings.start(ref), page.length(ref));
                dealtPage[entry] = pageNumber;
                dealtRow[entry] = row;
            }
            long[] values = into.lastValues();
            int at = into.valuesAt(row);
            for (int s = 0; s < slots; s++) {
                values[at + s] = v[s][i];
            }
            if (stringSlot >= 0) {
                values[at + stringSlot] = dealSlotString(worker, v[stringSlot][i]);
            }
        }
    }

    /**
     * Folds batch row {@code i} into row {@code dealt} of {@code into}, as the build would combine the two. A second
     * string is dealt only if its row wins its ARG_MAX: until then the slot holds a mark of its page reference, below
     * every handle, which decides nothing, since that ARG_MAX's orders never tie between rows of different strings.
     */
    private void fold(int worker, long[][] v, int i, DealtRows into, int dealt) {
        long[] row = folding[worker];
        for (int s = 0; s < row.length; s++) {
            row[s] = v[s][i];
        }
        if (stringSlot >= 0) {
            long ref = row[stringSlot];
            row[stringSlot] = ref == PageStrings.NULL ? 0 : -2 - ref;
        }
        long[] values = into.values(dealt);
        int at = into.valuesAt(dealt);
        fold.combine(values, at, row, 0);
        if (stringSlot >= 0 && values[at + stringSlot] < 0) {
            values[at + stringSlot] = dealSlotString(worker, -2 - values[at + stringSlot]);
        }
    }

    private long dealSlotString(int worker, long ref) {
        if (ref == PageStrings.NULL) {
            return 0;
        }
        PageStrings page = slotStrings[worker];
        int hash = page.hash(ref);
        int segment = StringIds.segmentOf(hash);
        DealtRows into = slotBuckets[worker][segment];
        return handle(worker, segment, into.add(hash, page.bytes(), PageStrings.start(ref), page.length(ref)));
    }

    /** Worker {@code worker}'s rows by entry (and their pages, {@link #dealtPages}), room for {@code entries}. */
    private int[] dealtRows(int worker, int entries) {
        int[] d = dealtRows[worker];
        if (d == null || d.length < entries) {
            int n = d == null ? Math.max(1 << 12, entries) : Math.max(entries, 2 * d.length);
            d = dealtRows[worker] = d == null ? new int[n] : Arrays.copyOf(d, n);
            dealtPages[worker] = dealtPages[worker] == null ? new long[n] : Arrays.copyOf(dealtPages[worker], n);
        }
        return d;
    }

    private DealtRows[] buckets(int worker) {
        DealtRows[] mine = buckets[worker];
        if (mine == null) {
            mine = buckets[worker] = new DealtRows[BUCKETS];
            // an even share and a fifth more sizes a bucket's first chunk; it grows by whole chunks ({@link DealtRows})
            int each = (int) Math.min(Integer.MAX_VALUE / 16, (long) expectedRows * 6 / 5 / strings.length / StringIds.SEGMENTS);
            for (int k = 0; k < BUCKETS; k++) {
                mine[k] = new DealtRows(runs.slots(), k == NULL_BUCKET ? 16 : each, bytesEach);
            }
            if (stringSlot >= 0) {
                slotBuckets[worker] = new DealtRows[StringIds.SEGMENTS];
                for (int k = 0; k < StringIds.SEGMENTS; k++) {
                    slotBuckets[worker][k] = new DealtRows(0, each, bytesEach);
                }
            }
        }
        return mine;
    }

    /** Every worker's bucket {@code k} (those that dealt nothing have none). */
    DealtRows[] bucket(int k) {
        return Arrays.stream(buckets).filter(w -> w != null).map(w -> w[k]).toArray(DealtRows[]::new);
    }

    Combine[] combine() {
        return combine;
    }

    int slots() {
        return runs.slots();
    }

    /** The aggregate's answer, keyed by {@code ids}' ids of the keys, ascending: call once, after the barrier. */
    AggregateResult result(MorselScheduler scheduler, StringIds ids) {
        return SegmentBuild.build(scheduler, this, ids);
    }

    /** As {@link #result(MorselScheduler, StringIds)}, the keys' ids from {@code keyIds}, the second string's from {@code ids}. */
    AggregateResult result(MorselScheduler scheduler, StringIds keyIds, StringIds ids) {
        return SegmentBuild.build(scheduler, this, keyIds, ids);
    }
}
