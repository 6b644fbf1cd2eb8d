package dev.baton.cli;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.baton.cli.options.ClientOptions;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.DispatchClientConfig;
import dev.baton.dispatcher.UnmatchedResultHandler;
import dev.baton.morsel.node.DistributedGroupBy;
import dev.baton.morsel.node.EngineNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code baton engine-group-by}: {@code SELECT key, sum(value), count(*) FROM topic GROUP BY key} run
 * by the engine nodes serving queue {@value EngineNode#QUEUE} ({@code baton engine-node}), through
 * {@link DistributedGroupBy}: one scan activity per split, partials exchanged through
 * {@code baton.exchange.<job>}, one merge activity per exchange partition.
 */
@Command(name = "engine-group-by", mixinStandardHelpOptions = true,
        description = "Run a GROUP BY key (sum, count) of a topic of 8-byte long keys and values over the running engine nodes.")
public final class EngineGroupByCommand implements Callable<Integer> {

    /** How long a stopped job may take to cancel its steps (it waits up to 10 s for the cancels) and delete its exchange. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(45);

    @Mixin
    ClientOptions client;

    @Option(names = "--topic", required = true, description = "Source topic: 8-byte big-endian long keys and values")
    String topic;

    @Option(names = "--job", description = "Job id; names the exchange topic baton.exchange.<job> (default: random)")
    String job;

    @Option(names = "--offsets-per-split", defaultValue = "100000", description = "Offsets per scan activity (default ${DEFAULT-VALUE})")
    long offsetsPerSplit;

    @Option(names = "--exchange-partitions", defaultValue = "4", description = "Partitions of the exchange, one merge each (default ${DEFAULT-VALUE})")
    int exchangePartitions;

    @Option(names = "--timeout", defaultValue = "PT10M", description = "Longest the whole job may take; steps still running then are cancelled. ISO-8601 (default ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = "--limit", defaultValue = "50", description = "Rows printed, smallest keys first; all are counted (default ${DEFAULT-VALUE})")
    int limit;

    @Override
    public Integer call() throws Exception {
        if (exchangePartitions < 1) {
            throw new IllegalArgumentException("--exchange-partitions must be >= 1, was " + exchangePartitions);
        }
        // Checked before the job runs: found while printing, a bad --limit lost the answer of a job that had run to the end.
        if (limit < 0) {
            throw new IllegalArgumentException("--limit must be >= 0, was " + limit);
        }
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("--timeout must be positive, was " + timeout);
        }
        String id = job != null ? job : "group-by-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, Object> config = client.clientConfig();
        Map<String, Object> dispatcherConfig = new HashMap<>(config);
        dispatcherConfig.putIfAbsent(DispatchClientConfig.CLIENT_ID_CONFIG, "engine-job-" + id);
        // SIGTERM or Ctrl-C while the job runs: interrupt it and wait for it to cancel its steps and delete its exchange, as a
        // job that fails or times out does. Without this the JVM ended at once, leaving scans on the nodes' slots and the
        // exchange topic behind (the job's id then refused as "exists already" until an operator deleted it).
        Thread caller = Thread.currentThread();
        CountDownLatch ended = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        Thread stop = new Thread(() -> {
            stopping.set(true);
            caller.interrupt();
            try {
                ended.await(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "baton-engine-job-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        try (DispatchClient dispatch = DispatchClient.create(dispatcherConfig, UnmatchedResultHandler.IGNORE)) {
            DistributedGroupBy.Result r;
            try {
                r = new DistributedGroupBy(config, dispatch, timeout).run(id, topic, offsetsPerSplit, exchangePartitions);
            } catch (Exception e) { // InterruptedException, or Kafka's unchecked InterruptException from a blocked send
                if (stopping.get()) {
                    System.err.println("job " + id + " stopped before its answer: the steps it had dispatched were cancelled and its"
                            + " exchange deleted");
                    for (Throwable cleanup : e.getSuppressed()) { // a cancel or the delete that could not be done
                        System.err.println("  but: " + cleanup);
                    }
                    return 130;
                }
                throw e;
            }
            Map<Long, long[]> rows = new TreeMap<>(r.rows());
            System.out.printf("%20s %20s %12s%n", "key", "sum", "count");
            rows.entrySet().stream().limit(limit).forEach(e -> System.out.printf("%20d %20d %12d%n", e.getKey(), e.getValue()[0], e.getValue()[1]));
            long records = rows.values().stream().mapToLong(v -> v[1]).sum();
            System.out.printf("job %s: %d groups, %,d records, %d splits, %d exchange partitions, %.2f s%n", id, rows.size(), records,
                    r.splits(), r.exchangePartitions(), r.nanos() / 1e9);
            return 0;
        } finally {
            ended.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(stop);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs, or has: it waits for the latch counted down above
            }
        }
    }
}
