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
     * The shortest wait from the end of the thread's last commit to a commit asked for because the
     * input was drained. Without it a thread at light load committed after every record or two: ~150
     * commits a second of ~6 ms each left it committing nearly all the time, and every record waited
     * behind a commit (p50 56-76 ms at 200/s against 29 ms for commits every 10 ms;
     * docs/benchmarks/dispatch-adaptive-2026-12-03.txt). Counted from the commit's end, as Kafka
     * Streams counts its interval, so at least this long in every cycle goes to processing: counted
     * from the ask, a 4-5 ms commit left 5-6 ms, and at 2,000/s records waited behind commits more
     * than the commits saved (p50 35.7 ms against 30.4 for the 10 ms timer).
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
    /** Records were processed since the thread's last commit ended: a drained commit is wanted. */
    private boolean processedSinceCommit;
    private long lastAskedMs = Long.MIN_VALUE / 2;
    private long lastCommitEndMs = Long.MIN_VALUE / 2;

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
        processedSinceCommit = true;
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

    /** The thread's producer committed a transaction (whoever asked for it: this pacing or Streams' timer). */
    void commitEnded(long nowMs) {
        lastCommitEndMs = nowMs;
        processedSinceCommit = false;
    }

    /**
     * How long the thread's next poll may wait for input, at most {@code requestedMs}: while a drained
     * commit waits only for its gap, no longer than the gap has left. The commit is asked for after
     * the poll (by the punctuator), so a poll that waited out Kafka Streams' {@code poll.ms} on a
     * quiet input would hold the commit, and every answer in it, back by up to that much.
     */
    long pollTimeoutMs(long requestedMs, long nowMs) {
        if (!processedSinceCommit || !drained() || lastAskedMs > lastCommitEndMs) {
            return requestedMs; // nothing to commit, more to process first, or the commit is already asked for
        }
        return Math.max(0, Math.min(requestedMs, lastCommitEndMs + MIN_GAP_MS - nowMs));
    }

    /** The thread's producer aborted its transaction: what was processed since the last commit is read again, nothing waits for a commit. */
    void aborted() {
        processedSinceCommit = false;
    }

    /**
     * True, once, when the input is drained and both the thread's last commit and the last commit
     * asked for this way are at least {@link #MIN_GAP_MS} old: the caller asks for a commit now.
     * Otherwise the thread's punctuator asks again a millisecond later, or the next record's
     * processing does. (The second gap keeps a request Streams found nothing to commit for from being
     * repeated on every loop.)
     */
    boolean commitDue(long nowMs) {
        if (!drained() || nowMs - lastCommitEndMs < MIN_GAP_MS || nowMs - lastAskedMs < MIN_GAP_MS) {
            return false;
        }
        lastAskedMs = nowMs;
        return true;
    }
}
