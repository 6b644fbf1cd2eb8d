package dev.baton.testkit;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

import dev.baton.worker.TypedActivityHandler;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;

/**
 * A worker whose handler counts rows and checkpoints each in its heartbeat details, resuming after
 * the last checkpoint it is handed. {@link #main} runs it as its own process, so a test can
 * {@code kill -9} it; the handler prints each row it finished.
 */
public final class CheckpointingWorker {

    public static final String QUEUE = "resumable";
    public static final String TYPE = "count";

    /** The checkpoint: the last row finished. */
    public record Progress(int row) {
    }

    /** What a finished count reports: where its generation started and the row it ended on. */
    public record Counted(int resumedAfter, int lastRow) {
    }

    private CheckpointingWorker() {
    }

    /**
     * Counts to {@code target} rows, {@code rowMillis} of work each, telling {@code finished} about each
     * row. The per-row wait stands for the activity's work; it is interrupted when Baton stops it.
     */
    public static TypedActivityHandler<Integer, Counted> handler(long rowMillis, IntConsumer finished) {
        return (ctx, target) -> {
            int from = ctx.lastHeartbeatDetails(Progress.class).map(Progress::row).orElse(0);
            for (int row = from + 1; row <= target; row++) {
                new CountDownLatch(1).await(rowMillis, TimeUnit.MILLISECONDS);
                finished.accept(row); // told before checkpointed, so no checkpoint is ahead of what was told
                ctx.heartbeat(new Progress(row));
            }
            return new Counted(from, target);
        };
    }

    public static WorkerOptions.Builder options(String bootstrap, String workerId, long rowMillis, IntConsumer finished) {
        return WorkerOptions.builder().bootstrapServers(bootstrap).workerId(workerId).queues(List.of(QUEUE))
                // A killed worker's task partitions move after the broker's minimum session timeout.
                .kafkaConfig(Map.of("session.timeout.ms", 6000, "heartbeat.interval.ms", 1000))
                .handler(TYPE, Integer.class, handler(rowMillis, finished));
    }

    /** {@code CheckpointingWorker <bootstrap> <workerId> <rowMillis>}: prints {@code serving}, then {@code row N} per row. */
    public static void main(String[] args) throws InterruptedException {
        Worker worker = Worker.start(options(args[0], args[1], Long.parseLong(args[2]), row -> System.out.println("row " + row)).build());
        System.out.println("serving as " + worker.workerId());
        new CountDownLatch(1).await(); // until killed
    }
}
