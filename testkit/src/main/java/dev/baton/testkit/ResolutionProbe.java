package dev.baton.testkit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Bytes;

/**
 * Measures recovery the way a caller sees it: dispatches one activity whose site lives on a chosen
 * partition of {@code baton.dispatch} and times it until its outcome comes back. Sent right after a
 * fault, the time says when that partition's whole path (dispatch leader, stream task, task topic,
 * worker, results) served again. Probes are ordinary requests with a client of their own, so the
 * invariant checker audits them with the rest.
 */
public final class ResolutionProbe implements AutoCloseable {

    private final String bootstrapServers;
    private final DispatchClient client;
    private final String queue;
    private final String activityType;
    private final int partitions;
    private final AtomicLong serial = new AtomicLong();

    /** @param activityType served on {@code queue} by every worker, and quick (an echo) */
    public ResolutionProbe(String bootstrapServers, String queue, String activityType, int partitions) {
        this.bootstrapServers = bootstrapServers;
        this.client = DispatchClient.create(ClientConfigs.settings(bootstrapServers, Map.of("baton.client.id", "probe")), o -> { });
        this.queue = queue;
        this.activityType = activityType;
        this.partitions = partitions;
    }

    /** When a probe round's last dispatch was decided by the streams app, and when its last outcome came back. */
    public record Recovery(double processedSeconds, double resolvedSeconds) { }

    /**
     * Sends one probe to each of {@code partitionsToProbe} at once and waits for all their outcomes.
     *
     * @return seconds from {@code sinceNanos} (a {@link System#nanoTime()}, e.g. of the fault) until the last outcome arrived
     * @throws IllegalStateException if an outcome did not arrive within {@code patience} or was not a completion
     */
    public double secondsUntilResolved(Collection<Integer> partitionsToProbe, long sinceNanos, Duration patience) {
        List<ActivityRequest> probes = partitionsToProbe.stream().map(this::request).toList();
        return secondsFrom(sinceNanos, lastOutcome(send(probes), patience));
    }

    /**
     * As {@link #secondsUntilResolved}, and also times the streams app alone: when each probe's first
     * history event became visible (read committed), i.e. when the stream task owning its partition
     * processed it and committed. After a streams-app kill that is "its tasks processing on the other
     * instance"; the outcome adds the task topic, a worker and the results topic.
     */
    public Recovery recovery(Collection<Integer> partitionsToProbe, long sinceNanos, Duration patience) {
        List<ActivityRequest> probes = partitionsToProbe.stream().map(this::request).toList();
        try (KafkaConsumer<byte[], byte[]> history = new KafkaConsumer<>(ClientConfigs.assignedReader(ClientConfigs.bootstrap(bootstrapServers)),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = history.partitionsFor(BatonTopics.HISTORY, patience).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            history.assign(partitions);
            history.seekToEnd(partitions);
            partitions.forEach(history::position); // fixed before the probes go out, so none of their events is skipped
            List<CompletableFuture<Long>> outcomes = send(probes);
            long processed = lastFirstEvent(history, probes, System.nanoTime() + patience.toNanos());
            return new Recovery(secondsFrom(sinceNanos, processed), secondsFrom(sinceNanos, lastOutcome(outcomes, patience)));
        }
    }

    private static long lastFirstEvent(KafkaConsumer<byte[], byte[]> history, List<ActivityRequest> probes, long deadlineNanos) {
        Set<Bytes> unseen = new HashSet<>();
        probes.forEach(p -> unseen.add(Bytes.wrap(p.site().toBytes())));
        long last = 0;
        while (!unseen.isEmpty()) {
            if (System.nanoTime() > deadlineNanos) {
                throw new IllegalStateException(unseen.size() + " probe(s) never reached " + BatonTopics.HISTORY + " (read committed)");
            }
            for (ConsumerRecord<byte[], byte[]> r : history.poll(Duration.ofMillis(50))) {
                if (r.key() != null && unseen.remove(Bytes.wrap(r.key()))) {
                    last = System.nanoTime();
                }
            }
        }
        return last;
    }

    private List<CompletableFuture<Long>> send(List<ActivityRequest> probes) {
        List<CompletableFuture<Long>> resolved = new ArrayList<>();
        for (ActivityRequest r : probes) {
            resolved.add(client.dispatch(r).thenApply(o -> {
                if (!o.completed()) {
                    throw new IllegalStateException("probe " + r.site() + " ended " + o.reason());
                }
                return System.nanoTime();
            }));
        }
        return resolved;
    }

    private static long lastOutcome(List<CompletableFuture<Long>> resolved, Duration patience) {
        try {
            long last = 0;
            for (CompletableFuture<Long> r : resolved) {
                last = Math.max(last, r.get(patience.toMillis(), TimeUnit.MILLISECONDS));
            }
            return last;
        } catch (TimeoutException e) {
            throw new IllegalStateException("a probe got no outcome within " + patience, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a probe failed: " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while probing", e);
        }
    }

    private static double secondsFrom(long sinceNanos, long atNanos) {
        return Math.max(0, atNanos - sinceNanos) / 1e9;
    }

    /** Every partition of {@code baton.dispatch}. */
    public List<Integer> allPartitions() {
        return IntStream.range(0, partitions).boxed().toList();
    }

    private ActivityRequest request(int partition) {
        if (partition < 0 || partition >= partitions) {
            throw new IllegalArgumentException("partition must be in 0.." + (partitions - 1) + ", was " + partition);
        }
        // Probe ids are tried in turn until one's site lands on the partition (murmur2, as the client's producer places it).
        while (true) {
            String workflow = "probe-" + serial.incrementAndGet();
            ActivityRequest r = ActivityRequest.builder().site("probe", workflow, "1").queue(queue).activityType(activityType)
                    .input(workflow.getBytes(StandardCharsets.UTF_8), "text/plain").build();
            if (BuiltInPartitioner.partitionForKey(r.site().toBytes(), partitions) == partition) {
                return r;
            }
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
