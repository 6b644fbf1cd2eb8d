package dev.baton.testkit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;

/**
 * Measures recovery the way a caller sees it: dispatches one activity whose site lives on a chosen
 * partition of {@code baton.dispatch} and times it until its outcome comes back. Sent right after a
 * fault, the time says when that partition's whole path (dispatch leader, stream task, task topic,
 * worker, results) served again. Probes are ordinary requests with a client of their own, so the
 * invariant checker audits them with the rest.
 */
public final class ResolutionProbe implements AutoCloseable {

    private final DispatchClient client;
    private final String queue;
    private final String activityType;
    private final int partitions;
    private final AtomicLong serial = new AtomicLong();

    /** @param activityType served on {@code queue} by every worker, and quick (an echo) */
    public ResolutionProbe(String bootstrapServers, String queue, String activityType, int partitions) {
        this.client = DispatchClient.create(ClientConfigs.settings(bootstrapServers, Map.of("baton.client.id", "probe")), o -> { });
        this.queue = queue;
        this.activityType = activityType;
        this.partitions = partitions;
    }

    /**
     * Sends one probe to each of {@code partitionsToProbe} at once and waits for all their outcomes.
     *
     * @return seconds from {@code sinceNanos} (a {@link System#nanoTime()}, e.g. of the fault) until the last outcome arrived
     * @throws IllegalStateException if an outcome did not arrive within {@code patience} or was not a completion
     */
    public double secondsUntilResolved(Collection<Integer> partitionsToProbe, long sinceNanos, Duration patience) {
        List<CompletableFuture<Long>> resolved = new ArrayList<>();
        for (int p : partitionsToProbe) {
            resolved.add(client.dispatch(request(p)).thenApply(o -> {
                if (!o.completed()) {
                    throw new IllegalStateException("probe on partition " + p + " ended " + o.reason());
                }
                return System.nanoTime();
            }));
        }
        try {
            long last = sinceNanos;
            for (CompletableFuture<Long> r : resolved) {
                last = Math.max(last, r.get(patience.toMillis(), TimeUnit.MILLISECONDS));
            }
            return (last - sinceNanos) / 1e9;
        } catch (TimeoutException e) {
            throw new IllegalStateException("a probe got no outcome within " + patience, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a probe failed: " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while probing", e);
        }
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
