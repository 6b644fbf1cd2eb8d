package dev.baton.bench.replay;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.kafka.TopicFold;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.kafka.ScanConsumers;
import dev.baton.morsel.kafka.TopicPageSource;
import dev.baton.morsel.kafka.TopicSplits;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;

/**
 * The history read through the column view on one thread, each record's offset its only column: the reader's own
 * cost, apart from the decode and the query. {@code bootstrap warmups runs}; the reader is the default (the fetch
 * reader) or, with {@code -Dbaton.scan.reader=consumer}, the consumer. Prints the calling thread's CPU per record
 * (the reading thread's alone: the collector's and the network client's other threads are not in it; the consumer
 * has none). With a fourth argument {@code threads=N}, the same through a {@link TopicFold} query
 * (a count by partition) on N workers, morsels and stealing as a query has them, its process CPU; with {@code raw}, the raw consumer ({@link RawScan}) at one thread instead, its process CPU.
 */
final class ReadOnlyScans {

    private static final long OFFSETS_PER_PAGE = 6_331; // the morsel size the 10M bench's history gets

    private ReadOnlyScans() {
    }

    public static void main(String[] args) throws InterruptedException {
        int warmups = Integer.parseInt(args[1]);
        int runs = Integer.parseInt(args[2]);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        if (args.length > 3 && args[3].startsWith("threads=")) {
            int t = Integer.parseInt(args[3].substring("threads=".length()));
            try (TopicFold fold = new TopicFold(ClientConfigs.bootstrap(args[0]), t, MorselMetrics.noop())) {
                for (int i = -warmups; i < runs; i++) {
                    long process0 = os.getProcessCpuTime();
                    long start = System.nanoTime();
                    TopicFold.Result<AggregateResult> r = ScanProbe.countByPartition(fold);
                    long nanos = System.nanoTime() - start;
                    System.out.printf("%s reader=%s threads=%d records=%d wall=%.2fs records/s=%,.0f process-cpu/record=%.0fns%n", i < 0 ? "warmup" : "run   ",
                            System.getProperty(ScanConsumers.READER_PROPERTY, "fetch"), t, r.records(), nanos / 1e9, r.records() / (nanos / 1e9),
                            (os.getProcessCpuTime() - process0) / (double) r.records());
                }
            }
            System.exit(0);
        }
        if (args.length > 3 && args[3].equals("raw")) {
            try (RawScan raw = new RawScan(ClientConfigs.bootstrap(args[0]), 1)) {
                for (int i = -warmups; i < runs; i++) {
                    long process0 = os.getProcessCpuTime();
                    long start = System.nanoTime();
                    long rows = raw.run(BatonTopics.HISTORY)[0];
                    long nanos = System.nanoTime() - start;
                    System.out.printf("%s reader=raw-consumer records=%d wall=%.2fs records/s=%,.0f process-cpu/record=%.0fns%n", i < 0 ? "warmup" : "run   ",
                            rows, nanos / 1e9, rows / (nanos / 1e9), (os.getProcessCpuTime() - process0) / (double) rows);
                }
            }
            System.exit(0);
        }
        try (ScanConsumers consumers = new ScanConsumers(ClientConfigs.bootstrap(args[0]), 1)) {
            List<OffsetRange> pages = new ArrayList<>();
            for (OffsetRange partition : TopicSplits.of(consumers.consumer(0), BatonTopics.HISTORY, Long.MAX_VALUE)) {
                pages.addAll(partition.split(OFFSETS_PER_PAGE));
            }
            for (int i = -warmups; i < runs; i++) {
                TopicPageSource source = TopicPageSource.columns(consumers, pages, List.of("offset"), (r, row) -> {
                    row[0] = r.offset();
                    return true;
                });
                source.prepare(0, IntStream.range(0, pages.size()).boxed().toList());
                source.bind(0);
                long process0 = os.getProcessCpuTime();
                long cpu0 = threads.getCurrentThreadCpuTime();
                long start = System.nanoTime();
                long rows = 0;
                for (int p = 0; p < pages.size(); p++) {
                    rows += source.rowsIn(p);
                }
                long nanos = System.nanoTime() - start;
                long cpu = threads.getCurrentThreadCpuTime() - cpu0;
                long process = os.getProcessCpuTime() - process0;
                System.out.printf("%s reader=%s records=%d wall=%.2fs records/s=%,.0f process-cpu/record=%.0fns thread-cpu/record=%.0fns%n",
                        i < 0 ? "warmup" : "run   ", System.getProperty(ScanConsumers.READER_PROPERTY, "fetch"), rows, nanos / 1e9,
                        rows / (nanos / 1e9), process / (double) rows, cpu / (double) rows);
            }
        }
        System.exit(0);
    }
}
