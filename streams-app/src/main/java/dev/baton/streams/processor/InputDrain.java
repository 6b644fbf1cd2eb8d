package dev.baton.streams.processor;

/**
 * Whether a stream thread has processed everything its consumer handed it while the broker had no
 * more to give: the moment the {@code drained} commit pacing commits at. At light load that is right
 * after each small batch, so an activity waits for no timer; at heavy load polls come back full, the
 * input is never drained, and Kafka Streams' interval paces the commits, so each commit carries a
 * large batch. Between the two the pacing adapts by itself: records that arrive during a commit make
 * the next batch, and the next commit, larger.
 *
 * <p>One per stream thread, used only by that thread: its main consumer ({@link DrainSignallingConsumer})
 * reports each poll and the processors each record. A thread whose consumer reports nothing (a
 * test driver, another pacing) is never drained, so nothing changes for it.
 */
final class InputDrain {

    private static final ThreadLocal<InputDrain> CURRENT = ThreadLocal.withInitial(InputDrain::new);
    /**
     * The shortest wait between two commits asked for because the input was drained. Without it a
     * thread at light load committed after every record or two: ~150 commits a second of ~6 ms each
     * left it committing nearly all the time, and every record waited behind a commit (p50 56-76 ms
     * at 200/s against 29 ms for commits every 10 ms; docs/benchmarks/dispatch-adaptive-2026-12-03.txt).
     */
    static final long MIN_GAP_MS = 10;

    /** The drain of the calling thread. */
    static InputDrain current() {
        return CURRENT.get();
    }

    /** A draining consumer polls on this thread. */
    private boolean watched;
    /** Records polled and not yet processed. */
    private long unprocessed;
    /** The last poll returned fewer records than it could: the consumer had nothing more fetched. */
    private boolean lastPollShort;
    private boolean processedSincePoll;
    private long lastAskedMs = Long.MIN_VALUE / 2;

    /** The consumer's poll returned {@code count} records, at most {@code maxPollRecords}. */
    void polled(int count, int maxPollRecords) {
        watched = true;
        if (count == 0 && !processedSincePoll) {
            // Nothing was processed since the last poll and nothing came: no task holds buffered
            // records (tasks never idle, max.task.idle.ms=-1). Forget what was counted for records
            // Streams dropped, e.g. those of partitions revoked before they were processed.
            unprocessed = 0;
        }
        unprocessed += count;
        lastPollShort = count < maxPollRecords;
        processedSincePoll = false;
    }

    /** A processor took one polled record. */
    void processed() {
        processedSincePoll = true;
        if (unprocessed > 0) {
            unprocessed--;
        }
    }

    /** True when every polled record was processed and the last poll left nothing behind. */
    boolean drained() {
        return watched && lastPollShort && unprocessed == 0;
    }

    /** Whether a draining consumer polls on this thread (known after its first poll). */
    boolean watched() {
        return watched;
    }

    /**
     * True, once, when the input is drained and the last commit asked for this way is at least
     * {@link #MIN_GAP_MS} old: the caller asks for a commit now. Otherwise the thread's punctuator
     * asks again a millisecond later, or the next record's processing does.
     */
    boolean commitDue(long nowMs) {
        if (!drained() || nowMs - lastAskedMs < MIN_GAP_MS) {
            return false;
        }
        lastAskedMs = nowMs;
        return true;
    }
}
