package dev.baton.morsel.kafka;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.morsel.Morsels;

/**
 * A topic's partitions cut into morsels and dealt to workers. The size follows the seed's rule for
 * pages, with the observed record in place of the page: a morsel holds as many records as fill half
 * of L2 ({@link Morsels#l2Bytes()}). Whole partitions are dealt to workers, largest first to the
 * least loaded (longest-processing-time first; a topic with fewer partitions than workers is cut
 * into contiguous pieces first), and a worker's morsels of one partition are
 * consecutive, so its consumer streams through them without seeking; the scheduler's stealing
 * evens out what the deal could not. A morsel's preferred node is its worker: the scheduler is run
 * with one node per worker.
 */
public final class TopicMorsels {

    /** Below this a morsel costs more in scheduling than it reads. */
    static final long MIN_OFFSETS = 512;
    /** Record size assumed when the topic is empty or the first fetch brought nothing. */
    static final int DEFAULT_RECORD_BYTES = 256;
    /** Bytes a record takes in a batch beyond its key and value (length, attributes, deltas). */
    static final int RECORD_OVERHEAD_BYTES = 8;

    /** The ranges (page {@code i} is {@code ranges.get(i)}) and the morsels over them, one page each. */
    public record Plan(List<OffsetRange> ranges, List<Morsel> morsels, long offsetsPerMorsel) {
    }

    private TopicMorsels() {
    }

    /** Offsets per morsel so a morsel's records fill half of an L2 of {@code l2Bytes}. */
    public static long offsetsPerMorsel(long l2Bytes, double recordBytes) {
        if (recordBytes <= 0) {
            throw new IllegalArgumentException("recordBytes must be > 0, was " + recordBytes);
        }
        return Math.max(MIN_OFFSETS, (long) (l2Bytes / 2 / recordBytes));
    }

    /** The mean size of these records in a batch, or {@value #DEFAULT_RECORD_BYTES} if there are none. */
    static double recordBytes(List<? extends org.apache.kafka.clients.consumer.ConsumerRecord<?, ?>> sample) {
        if (sample.isEmpty()) {
            return DEFAULT_RECORD_BYTES;
        }
        long bytes = 0;
        for (var r : sample) {
            bytes += Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize()) + RECORD_OVERHEAD_BYTES;
        }
        return (double) bytes / sample.size();
    }

    /**
     * @param partitions one range per partition (its whole extent to scan)
     */
    public static Plan plan(List<OffsetRange> partitions, long offsetsPerMorsel, int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1, was " + workers);
        }
        List<List<OffsetRange>> byWorker = new ArrayList<>();
        long[] load = new long[workers];
        for (int w = 0; w < workers; w++) {
            byWorker.add(new ArrayList<>());
        }
        List<OffsetRange> pieces = new ArrayList<>();
        List<OffsetRange> nonEmpty = partitions.stream().filter(r -> r.offsets() > 0).toList();
        // Fewer partitions than workers (an engine node's single split): cut each in contiguous pieces so every worker streams one.
        int perPartition = nonEmpty.isEmpty() ? 1 : (workers + nonEmpty.size() - 1) / nonEmpty.size();
        for (OffsetRange p : nonEmpty) {
            long step = Math.max(1, (p.offsets() + perPartition - 1) / perPartition);
            pieces.addAll(p.split(step));
        }
        List<OffsetRange> largestFirst = pieces.stream()
                .sorted(Comparator.comparingLong(OffsetRange::offsets).reversed().thenComparingInt(OffsetRange::partition)).toList();
        for (OffsetRange p : largestFirst) {
            int least = 0;
            for (int w = 1; w < workers; w++) {
                least = load[w] < load[least] ? w : least;
            }
            load[least] += p.offsets();
            byWorker.get(least).add(p);
        }
        List<OffsetRange> ranges = new ArrayList<>();
        List<Morsel> morsels = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            byWorker.get(w).sort(Comparator.comparingInt(OffsetRange::partition).thenComparingLong(OffsetRange::from));
            for (OffsetRange p : byWorker.get(w)) {
                for (OffsetRange r : p.split(offsetsPerMorsel)) {
                    morsels.add(new Morsel(ranges.size(), ranges.size(), ranges.size() + 1, w));
                    ranges.add(r);
                }
            }
        }
        return new Plan(ranges, morsels, offsetsPerMorsel);
    }
}
