package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.List;

import dev.baton.morsel.exchange.HashExchange;
import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * The local hash exchange between an aggregate's partials and its merge: every partial group goes
 * to exchange partition {@link HashExchange#partitionOf}{@code (key, P)} — the partition a
 * Kafka-backed exchange would write to — and a {@link PipelineKind#MERGE} pipeline merges the
 * partitions in parallel, one task each. A partition that already holds {@code hotThreshold} groups
 * spills further groups to the least-loaded partition ({@link HashExchange#assign}); a spilled key
 * may then appear in two partitions, so the final gather merges equal keys across partitions.
 */
public final class AggregateExchange {

    private final int partitions;
    private final int hotThreshold;

    /**
     * @param hotThreshold groups a partition takes before it spills; {@code 0} means twice the fair
     *                     share ({@code 2 * groups / partitions}), decided per merge
     */
    public AggregateExchange(int partitions, int hotThreshold) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        if (hotThreshold < 0) {
            throw new IllegalArgumentException("hotThreshold must be >= 0 (0 = twice the fair share), was " + hotThreshold);
        }
        this.partitions = partitions;
        this.hotThreshold = hotThreshold;
    }

    /** Two partitions per worker, so stealing can even out unequal partitions. */
    public static AggregateExchange defaults(int workers) {
        return new AggregateExchange(2 * workers, 0);
    }

    /** What the exchange did: groups per partition, and how many spilled from a hot one. */
    public record Layout(int[] groupsPerPartition, int spilled) {
    }

    private Layout last;

    /** The layout of the last {@link #merge}. */
    public Layout lastLayout() {
        return last;
    }

    public AggregateResult merge(MorselScheduler scheduler, LongAggTable[] partials, int slots) {
        Combine[] combine = partials.length == 0 ? null : partials[0].combine();
        int groups = 0;
        for (LongAggTable t : partials) {
            groups += t.size();
        }
        long[] keys = new long[groups];
        long[] values = new long[groups * slots];
        int at = 0;
        for (LongAggTable t : partials) {
            at += t.drainTo(keys, values, at);
        }
        int threshold = hotThreshold > 0 ? hotThreshold : Math.max(1, 2 * (groups / partitions + 1));
        int[] target = HashExchange.assign(keys, partitions, threshold);
        int[][] members = byPartition(target);
        int spilled = 0;
        for (int i = 0; i < keys.length; i++) {
            spilled += target[i] != HashExchange.partitionOf(keys[i], partitions) ? 1 : 0;
        }
        int[] sizes = new int[partitions];
        for (int p = 0; p < partitions; p++) {
            sizes[p] = members[p].length;
        }
        last = new Layout(sizes, spilled);
        AggregateResult[] merged = new AggregateResult[partitions];
        List<Morsel> tasks = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tasks.add(new Morsel(p, p, p + 1, 0));
        }
        scheduler.run(Pipeline.of("aggregate-exchange-merge", PipelineKind.MERGE, tasks, groups, (w, m, ctx) -> {
            int[] mine = members[m.id()];
            LongAggTable t = new LongAggTable(slots, Math.max(16, mine.length), combine);
            for (int i : mine) {
                t.addAll(keys[i], values, i);
            }
            merged[m.id()] = t.sorted();
        }));
        return gather(merged, slots, combine);
    }

    private int[][] byPartition(int[] target) {
        int[] counts = new int[partitions];
        for (int t : target) {
            counts[t]++;
        }
        int[][] members = new int[partitions][];
        for (int p = 0; p < partitions; p++) {
            members[p] = new int[counts[p]];
        }
        int[] fill = new int[partitions];
        for (int i = 0; i < target.length; i++) {
            members[target[i]][fill[target[i]]++] = i;
        }
        return members;
    }

    /** Merges the partitions' sorted runs into one, adding up a key that spilled into several. */
    static AggregateResult gather(AggregateResult[] runs, int slots) {
        return gather(runs, slots, null);
    }

    /** As {@link #gather(AggregateResult[], int)}, combining a key found in several runs slot by slot as {@code combine} says. */
    static AggregateResult gather(AggregateResult[] runs, int slots, Combine[] combine) {
        return SortedRunMerge.mergeRange(runs, Long.MIN_VALUE, Long.MAX_VALUE, true, slots, combine);
    }
}
