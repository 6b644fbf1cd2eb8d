package dev.baton.morsel.operator;

/**
 * The probe side of an inner hash join: looks each selected row's key up in the build's table,
 * drops rows without a match and writes the matched payload into column {@code payloadOut}.
 * Runs in a {@link dev.baton.morsel.scheduler.PipelineKind#PROBE} pipeline, after its build.
 */
public record HashJoinProbe(JoinBuild build, Expr key, ColumnRef payloadOut) implements Stage {

    /** Payload value marking "no such key"; the build side must not store it. */
    public static final long MISSING = Long.MIN_VALUE;

    @Override
    public void apply(Batch b) {
        // The one-table build keeps a loop of its own: a direct table read the JIT inlines, where the
        // general loop below makes an interface call per row (the two loops differ only in that).
        if (!(build instanceof HashJoinBuild broadcast)) {
            applyByLookup(b);
            return;
        }
        LongLongJoinTable table = broadcast.table();
        long[] keys = b.scratch(0);
        key.eval(b, keys, 1);
        long[] out = b.computed(payloadOut.index());
        int[] sel = b.selection();
        int k = 0;
        for (int j = 0, n = b.selected(); j < n; j++) {
            int i = sel[j];
            long p = table.get(keys[i], MISSING);
            out[i] = p;
            sel[k] = i;
            k += p != MISSING ? 1 : 0;
        }
        b.select(k);
    }

    /** Any build: one lookup per row through {@link JoinBuild#lookup} (a partitioned build picks the key's partition). */
    private void applyByLookup(Batch b) {
        long[] keys = b.scratch(0);
        key.eval(b, keys, 1);
        long[] out = b.computed(payloadOut.index());
        int[] sel = b.selection();
        int k = 0;
        for (int j = 0, n = b.selected(); j < n; j++) {
            int i = sel[j];
            long p = build.lookup(keys[i], MISSING);
            out[i] = p;
            sel[k] = i;
            k += p != MISSING ? 1 : 0;
        }
        b.select(k);
    }
}
