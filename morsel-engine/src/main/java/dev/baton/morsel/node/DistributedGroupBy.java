package dev.baton.morsel.node;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.kafka.TopicSplits;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import dev.baton.topics.TopicSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@code SELECT key, sum(value), count(*) FROM topic GROUP BY key} over the engine worker group.
 * The source topic's records carry an 8-byte key and an 8-byte value.
 *
 * <p>The job creates {@code baton.exchange.<job>} with {@code P} partitions, dispatches one scan
 * activity per source split, builds the manifest of accepted executions from their outcomes,
 * dispatches one merge activity per exchange partition, unions the merged rows and deletes the
 * exchange topic. Every step is a Baton activity, so a node lost mid-job costs a re-delivery, not
 * the job. Steps and their results travel as Avro records ({@code JobSteps}).
 *
 * <p>Each run's steps are sites of their own ({@code engine / job / run.scan-3.nonce}, the run and each step a random id): a resolved site
 * answers a repeated dispatch with its stored outcome for the dedupe window, so steps named by the job alone would hand
 * a job run again under its id (a nightly job) its last run's answers instead of scanning what the topic holds now.
 *
 * <p>The timeout bounds the whole job, not each step. When a step fails or the job runs out of time, every step
 * not yet answered is cancelled before the job throws: a failed job leaves no scan holding a node's slot. So is a job whose
 * thread is interrupted (its process told to stop): it cancels its steps and deletes its exchange before it throws.
 */
public final class DistributedGroupBy {

    /** The answer, and how the job went. */
    public record Result(Map<Long, long[]> rows, int splits, int exchangePartitions, long nanos) {
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    /** An execution id as long as an engine node's are in practice (attempt.generation.nonce), for the merge step's bound. */
    private static final String WIDE_EXECUTION = "9999.9999." + "x".repeat(16);

    private final Map<String, Object> clientConfig;
    private final DispatchClient client;
    private final Duration timeout;
    /** Steps of the running job (an instance runs one job at a time), cancelled if the job ends early. */
    private final Map<SiteKey, CompletableFuture<ActivityOutcome>> outstanding = new LinkedHashMap<>();
    private long deadlineNanos;
    /** The running job's run id: its steps' activity ids start with it. */
    private String run;

    public DistributedGroupBy(Map<String, Object> clientConfig, DispatchClient client, Duration timeout) {
        this.clientConfig = clientConfig;
        this.client = client;
        this.timeout = timeout;
    }

    public Result run(String job, String sourceTopic, long offsetsPerSplit, int exchangePartitions) throws Exception {
        if (!job.matches("[A-Za-z0-9_-]{1,100}")) {
            throw new IllegalArgumentException("job id must match [A-Za-z0-9_-]{1,100} (it names a topic), was '" + job + "'");
        }
        long start = System.nanoTime();
        deadlineNanos = start + timeout.toNanos();
        outstanding.clear();
        run = "run-" + runNonce();
        String exchange = EngineNode.exchangeTopic(job);
        List<OffsetRange> splits = splits(sourceTopic, offsetsPerSplit);
        requireMergeStepsFit(job, splits, offsetsPerSplit, exchangePartitions);
        try (Admin admin = Admin.create(ClientConfigs.admin(clientConfig))) {
            // The cluster's default replication, like Baton's own topics: an exchange lost with one broker fails the job.
            // TopicCreator returns once every partition takes writes: the engine nodes write to it idempotently at once.
            TopicCreator.Report created = new TopicCreator(admin).create(
                    List.of(new TopicSpec(exchange, exchangePartitions, TopicLayout.BROKER_DEFAULT_REPLICATION, Map.of())));
            if (!created.created().contains(exchange)) {
                throw new IllegalStateException("exchange topic " + exchange + " exists already: job id '" + job
                        + "' is running or was left over; choose another job id or delete the topic");
            }
            Result result;
            try {
                String secret = ExchangeSecret.create();
                ExchangeSecret.write(clientConfig, exchange, secret); // before any step: a node refuses steps without it
                Map<OffsetRange, String> manifest = scan(job, splits, exchangePartitions, secret);
                Map<Long, long[]> rows = merge(job, exchangePartitions, manifest, secret);
                result = new Result(rows, splits.size(), exchangePartitions, System.nanoTime() - start);
            } catch (Exception | Error e) {
                // A job stopped by an interrupt (its process told to stop) still cancels its steps and deletes its exchange:
                // those waits must not be cut short by the interrupt that ended the job. It is restored once they are done.
                boolean interrupted = Thread.interrupted();
                try {
                    cancelOutstanding(e);
                    admin.deleteTopics(Set.of(exchange)).all().get(30, TimeUnit.SECONDS);
                } catch (Exception cleanup) {
                    e.addSuppressed(cleanup);
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
                throw e;
            }
            admin.deleteTopics(Set.of(exchange)).all().get(30, TimeUnit.SECONDS);
            return result;
        }
    }

    private List<OffsetRange> splits(String topic, long offsetsPerSplit) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(ClientConfigs.assignedReader(clientConfig), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            return TopicSplits.of(consumer, topic, offsetsPerSplit);
        }
    }

    /**
     * Every merge step carries the whole manifest (each split and the execution accepted for it), so the splits' count is
     * bounded by what one activity input may hold. Checked before anything is created or dispatched: found at the
     * merge, the limit would fail a job whose every scan had run.
     */
    private void requireMergeStepsFit(String job, List<OffsetRange> splits, long offsetsPerSplit, int partitions) {
        Map<OffsetRange, String> widest = new LinkedHashMap<>();
        for (OffsetRange split : splits) {
            widest.put(split, WIDE_EXECUTION);
        }
        int bytes = JobSteps.encodeMerge(job, partitions - 1, widest, ExchangeSecret.create()).length;
        int limit = client.maxPayloadBytes();
        if (bytes > limit) {
            long enough = (long) Math.ceil(offsetsPerSplit * (double) bytes / (limit * 0.9));
            throw new IllegalArgumentException(splits.size() + " splits make each merge step's input ~" + bytes
                    + " bytes (it names every split and its execution), over the dispatch client's max.payload.bytes " + limit
                    + ": give --offsets-per-split at least " + enough + " (was " + offsetsPerSplit + ")");
        }
    }

    /** Split → the execution Baton accepted for it. */
    private Map<OffsetRange, String> scan(String job, List<OffsetRange> splits, int partitions, String secret) throws Exception {
        Map<OffsetRange, CompletableFuture<ActivityOutcome>> outcomes = new LinkedHashMap<>();
        for (int i = 0; i < splits.size(); i++) {
            byte[] input = JobSteps.encodeScan(new JobSteps.Scan(job, partitions, splits.get(i), secret));
            outcomes.put(splits.get(i), dispatch(activity(job, step(".scan-" + i), EngineNode.SCAN, input)));
        }
        Map<OffsetRange, String> manifest = new LinkedHashMap<>();
        for (Map.Entry<OffsetRange, CompletableFuture<ActivityOutcome>> e : outcomes.entrySet()) {
            manifest.put(e.getKey(), JobSteps.decodeScanDone(output(e.getValue(), "scan of " + e.getKey())));
        }
        return manifest;
    }

    private Map<Long, long[]> merge(String job, int partitions, Map<OffsetRange, String> manifest, String secret) throws Exception {
        List<CompletableFuture<ActivityOutcome>> merges = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            merges.add(dispatch(activity(job, step(".merge-" + p), EngineNode.MERGE, JobSteps.encodeMerge(job, p, manifest, secret))));
        }
        Map<Long, long[]> rows = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            SumRows.merge(rows, JobSteps.decodeRows(output(merges.get(p), "merge of exchange partition " + p)));
        }
        return rows;
    }

    private ActivityRequest activity(String job, String step, String type, byte[] input) {
        return ActivityRequest.builder().site("engine", job, step).queue(EngineNode.QUEUE).activityType(type)
                .input(input, JobSteps.CONTENT_TYPE).heartbeat(Duration.ofSeconds(2)).build();
    }

    /**
     * A step's activity id: the run's, the step's name, and a nonce of its own. The run id is on {@code baton.results}
     * (every dispatcher reads it) once the first step is answered; a step named by it alone could be dispatched first by
     * anyone, to a queue whose worker they control, and the job's own dispatch, the same site at the same attempt with the
     * same idempotency key, joined that site's outcome: the job answered with made-up rows (h/adv24a). With its own nonce
     * a step's site is unknown until the job has dispatched it.
     */
    private String step(String name) {
        return run + name + "." + runNonce();
    }

    private static String runNonce() {
        byte[] b = new byte[9];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private CompletableFuture<ActivityOutcome> dispatch(ActivityRequest request) {
        CompletableFuture<ActivityOutcome> outcome = client.dispatch(request);
        outstanding.put(request.site(), outcome);
        return outcome;
    }

    private byte[] output(CompletableFuture<ActivityOutcome> future, String what) throws Exception {
        ActivityOutcome o;
        try {
            o = future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new TimeoutException("job ran out of its timeout " + timeout + " waiting for the " + what
                    + "; give it a longer --timeout or more engine nodes");
        }
        if (!o.completed()) {
            String advice = o.reason().contains("OutputTooLarge") ? "; give the job more --exchange-partitions (a merge answers"
                    + " with its partition's groups: more partitions, fewer each)" : "";
            throw new IllegalStateException(what + " failed: " + o.reason() + advice);
        }
        return o.output();
    }

    /**
     * Cancels every step not yet answered, so a node stops a scan the job no longer waits for (a cancelled step ends
     * within the morsel it reads). Waits briefly for the cancels to be sent; one that cannot be is noted on the cause.
     */
    private void cancelOutstanding(Throwable cause) {
        List<CompletableFuture<Void>> cancels = new ArrayList<>();
        outstanding.forEach((site, outcome) -> {
            if (!outcome.isDone()) {
                try {
                    cancels.add(client.cancel(site));
                } catch (RuntimeException e) {
                    cause.addSuppressed(e);
                }
            }
        });
        try {
            CompletableFuture.allOf(cancels.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cause.addSuppressed(e);
        } catch (ExecutionException | TimeoutException e) {
            cause.addSuppressed(new IllegalStateException("could not cancel every outstanding step of the job", e));
        }
    }
}
