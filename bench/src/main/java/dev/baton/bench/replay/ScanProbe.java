package dev.baton.bench.replay;

import java.util.List;
import java.util.Map;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.history.HistoryLog;
import dev.baton.morsel.history.HistoryStats;
import dev.baton.morsel.history.Replay;
import dev.baton.morsel.kafka.TopicFold;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.HashAggregate;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;

/**
 * One kind of scan at one thread count: the warm measurements repeat runs on one probe; a cold one is
 * the first run of a probe made in a fresh JVM ({@link #main}). The raw consumer's consumers are made
 * once and reused by every run. A history query gets a fresh {@link HistoryLog} per run, made before
 * the clock starts, because that is what a user's {@code baton replay} or {@code history} has: one
 * query in a fresh process, its string dictionary and tables empty. Reusing one log would let every
 * run after the first find each site key and request id already interned.
 */
final class ScanProbe implements AutoCloseable {

    /** One run: records and bytes read (of the history; stats also reads results), and how long it took. */
    record Run(long records, long bytes, long nanos) {
        double recordsPerSecond() {
            return records / (nanos / 1e9);
        }

        double megabytesPerSecond() {
            return bytes / 1e6 / (nanos / 1e9);
        }
    }

    /**
     * The {@link ScanKind#DECODE} scope: events from the end of time on, so the time filter drops every row. A time scope
     * rather than a namespace no record has, because a namespace scope also interns each record's namespace, which
     * replay's unscoped query does not: with this one the decoder does exactly what replay's does.
     */
    static final HistoryLog.Scope NO_RECORD = new HistoryLog.Scope(Long.MAX_VALUE, null);

    /** What a child JVM prints: its one run, for the parent to parse. */
    static final String LINE = "probe-run";

    private final ScanKind kind;
    private final RawScan raw;
    private final Map<String, Object> clientConfig;
    private final int threads;
    /** The log the next run queries: made by the constructor for the first run, by {@link #run} before its clock for the others. */
    private HistoryLog next;
    /** As {@link #next}, the fold the next {@link ScanKind#READER} run counts with. */
    private TopicFold nextFold;

    ScanProbe(ScanKind kind, Map<String, Object> clientConfig, int threads) {
        this.kind = kind;
        this.clientConfig = clientConfig;
        this.threads = threads;
        this.raw = kind == ScanKind.RAW ? new RawScan(clientConfig, threads) : null;
        this.next = kind == ScanKind.REPLAY || kind == ScanKind.DECODE || kind == ScanKind.STATS ? newLog() : null;
        this.nextFold = kind == ScanKind.READER ? newFold() : null;
    }

    /** A run whose figures nobody reads: a warm-up round's, which cannot throw a checked exception. */
    void runUnmeasured() {
        try {
            run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while warming up", e);
        }
    }

    private HistoryLog newLog() {
        return new HistoryLog(clientConfig, "kafka://", threads);
    }

    private TopicFold newFold() {
        return new TopicFold(clientConfig, threads, MorselMetrics.noop());
    }

    /**
     * {@code baton.history} counted by partition on {@code fold}: the scan's reader, morsels and fold with no decode and
     * no state to speak of, what every history query pays before its own work.
     */
    static TopicFold.Result<AggregateResult> countByPartition(TopicFold fold) {
        return fold.query(fold.partitions(BatonTopics.HISTORY), List.of("partition"), (record, row) -> {
            row[0] = record.partition();
            return true;
        }, scan -> {
            HashAggregate count = HashAggregate.groupBy(scan.col("partition"), 64).count();
            scan.into(count);
            return count::result;
        }, () -> false);
    }

    Run run() throws InterruptedException {
        if (kind == ScanKind.RAW) {
            // As before the history queries below: the other kinds' tables are collected now, not by a collection inside
            // this run's clock (they did: warm raw runs of 2.2 to 5.8 s in one JVM, up to 1 s of them in a collection).
            System.gc();
            long start = System.nanoTime();
            long[] r = raw.run(BatonTopics.HISTORY);
            return new Run(r[0], r[1], System.nanoTime() - start);
        }
        if (kind == ScanKind.READER) {
            if (nextFold == null) {
                System.gc(); // as below
                nextFold = newFold();
            }
            try (TopicFold fold = nextFold) {
                nextFold = null;
                long start = System.nanoTime();
                TopicFold.Result<AggregateResult> r = countByPartition(fold);
                return new Run(r.records(), r.bytes(), System.nanoTime() - start);
            }
        }
        if (next == null) {
            System.gc(); // the last run's tables, collected now rather than inside this run's clock
            next = newLog();
        }
        try (HistoryLog log = next) {
            next = null;
            return timed(log);
        }
    }

    private Run timed(HistoryLog log) {
        long start = System.nanoTime();
        switch (kind) {
            case REPLAY -> log.siteCount(HistoryLog.Scope.ALL);
            case DECODE -> {
                if (log.siteCount(NO_RECORD) != 0) {
                    throw new IllegalStateException("a history record at the end of time: the decode row would have aggregated it");
                }
            }
            case STATS -> HistoryStats.compute(log, HistoryLog.Scope.ALL, HistoryStats.GroupBy.OUTCOME);
            default -> throw new IllegalStateException(kind.name());
        }
        long nanos = System.nanoTime() - start;
        return new Run(log.lastScan().records(), log.lastScan().bytes(), nanos);
    }

    @Override
    public void close() {
        if (raw != null) {
            raw.close();
        }
        if (next != null) {
            next.close();
        }
        if (nextFold != null) {
            nextFold.close();
        }
    }

    /**
     * A cold run: {@code kind threads bootstrap}; prints {@value #LINE} records bytes nanos (from main's
     * start). Kind {@code COMMAND} is what {@code baton replay} runs: history, results and the changelog.
     */
    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        int threads = Integer.parseInt(args[1]);
        if (args[0].equals("COMMAND")) {
            try (HistoryLog log = new HistoryLog(ClientConfigs.bootstrap(args[2]), "kafka://", threads)) {
                Replay.Report report = Replay.analyse(log, HistoryLog.Scope.ALL, "baton-streams");
                System.out.println(LINE + " " + log.lastScan().records() + " " + log.lastScan().bytes() + " " + (System.nanoTime() - start)
                        + " sites=" + report.sites());
            }
            System.exit(0);
        }
        ScanKind kind = ScanKind.valueOf(args[0]);
        try (ScanProbe probe = new ScanProbe(kind, ClientConfigs.bootstrap(args[2]), threads)) {
            long setUp = System.nanoTime() - start;
            Run r = probe.run();
            System.out.println(LINE + " " + r.records() + " " + r.bytes() + " " + (System.nanoTime() - start) + " " + setUp);
        }
        System.exit(0);
    }
}
