package dev.baton.morsel.operator;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The build side of a hash join on a long key with one long payload: each worker inserts its rows
 * into its own {@link LongLongJoinTable}; after the build pipeline's barrier the partials merge
 * once into the table every probe reads. The merged table is shared, read-only, by all probe
 * workers: a broadcast of the build side, so a probe key however skewed costs every worker the
 * same lookups and no probe row has to move. Keys must be unique on the build side (a primary key);
 * a repeated key keeps the payload merged last.
 */
public final class HashJoinBuild implements JoinBuild {

    private final ColumnRef key;
    private final ColumnRef payload;
    private final LongLongJoinTable[] partials;
    private final AtomicReference<LongLongJoinTable> merged = new AtomicReference<>();

    public HashJoinBuild(int workers, ColumnRef key, ColumnRef payload, int expectedRows) {
        this.key = key;
        this.payload = payload;
        this.partials = new LongLongJoinTable[workers];
        for (int w = 0; w < workers; w++) { // partial 0 receives the merge: sized for every row, it merges without a rehash
            partials[w] = new LongLongJoinTable((w == 0 ? expectedRows : expectedRows / workers) + 16);
        }
    }

    @Override
    public void consume(int worker, Batch b) {
        long[] k = b.scratch(0);
        long[] p = b.scratch(1);
        key.eval(b, k, 2);
        payload.eval(b, p, 2);
        LongLongJoinTable t = partials[worker];
        int[] sel = b.selection();
        for (int j = 0, n = b.selected(); j < n; j++) {
            int i = sel[j];
            t.put(k[i], p[i]);
        }
    }

    @Override
    public long lookup(long k, long missing) {
        return table().get(k, missing);
    }

    /**
     * The merged build table. The first caller (after the build barrier) merges the partials; later
     * callers get the same table. Safe to call from any thread.
     */
    public LongLongJoinTable table() {
        LongLongJoinTable t = merged.get();
        if (t != null) {
            return t;
        }
        synchronized (this) {
            if (merged.get() == null) {
                LongLongJoinTable all = partials[0];
                for (int w = 1; w < partials.length; w++) {
                    all.mergeFrom(partials[w]);
                }
                merged.set(all);
            }
            return merged.get();
        }
    }
}
