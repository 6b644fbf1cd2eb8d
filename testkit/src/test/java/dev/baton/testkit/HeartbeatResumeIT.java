package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.CheckpointingWorker.Counted;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Heartbeat checkpoints across a real crash: a worker in its own JVM checkpoints rows in its
 * heartbeats and is killed with {@code kill -9} mid-activity; Baton declares the generation lost and
 * re-delivers the same attempt with the last details it stored, and the next worker's handler resumes
 * after them instead of starting over.
 */
class HeartbeatResumeIT {

    private static final int ROWS = 400;

    private LocalCluster cluster;
    private BatonProcess first;

    @AfterEach
    void close() {
        if (first != null) {
            first.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldResumeFromTheLastHeartbeatDetailsAfterTheWorkerIsKilled() throws Exception {
        cluster = LocalCluster.start(1, List.of(CheckpointingWorker.QUEUE));
        DispatchClient client = cluster.client("resume", unmatched -> { });
        first = BatonProcess.startMain("checkpointing-1", CheckpointingWorker.class.getName(), "serving", Duration.ofSeconds(90),
                List.of(cluster.bootstrapServers(), "checkpointing-1", "20"));
        CompletableFuture<Counted> counted = client.dispatch(ActivityRequest.builder().site("resume", "job-1", "1")
                .queue(CheckpointingWorker.QUEUE).activityType(CheckpointingWorker.TYPE).input(ROWS)
                .heartbeat(Duration.ofMillis(1_500)).build(), Counted.class);

        // Past a few heartbeat rounds (every 500 ms), so details have been sent; then a crash.
        await().atMost(Duration.ofSeconds(60)).until(() -> lastRow(first).orElse(0) >= 60);
        first.kill9();

        AtomicInteger firstRowOfNextWorker = new AtomicInteger();
        cluster.worker(CheckpointingWorker.options(cluster.bootstrapServers(), "checkpointing-2", 1,
                row -> firstRowOfNextWorker.compareAndSet(0, row)));

        Counted result = counted.get(60, TimeUnit.SECONDS);
        int lastRowBeforeKill = lastRow(first).orElseThrow(); // read now: the killed process's output has been drained by then
        assertThat(lastRowBeforeKill).as("killed mid-activity").isLessThan(ROWS);
        assertThat(result.lastRow()).isEqualTo(ROWS);
        assertThat(result.resumedAfter()).as("resumed after a checkpoint of the killed worker, not from the start")
                .isPositive().isLessThanOrEqualTo(lastRowBeforeKill);
        assertThat(firstRowOfNextWorker.get()).isEqualTo(result.resumedAfter() + 1);
    }

    private static Optional<Integer> lastRow(BatonProcess worker) {
        List<String> output = worker.output();
        for (int i = output.size() - 1; i >= 0; i--) {
            if (output.get(i).startsWith("row ")) {
                return Optional.of(Integer.parseInt(output.get(i).substring(4).trim()));
            }
        }
        return Optional.empty();
    }
}
