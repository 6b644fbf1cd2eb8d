package dev.baton.streams.state;

/**
 * The input record a step decides: which of the site's two input topics, its partition, its offset,
 * and the time its timers count from ({@code timeMs}: a dispatch record's timestamp, a deadline
 * record's due time; -1 for a worker's report, whose clock is not the streams app's to trust). A timer
 * step has none ({@link #NONE}). Rows remember the last offset of each topic that
 * wrote them, which is how a step tells a record it applied already (reprocessed after an
 * at-least-once restart) from a new one.
 */
public record StepInput(Source source, int partition, long offset, long timeMs) {

    /** The two input topics of the site processor. */
    public enum Source { DISPATCH, WORKER_EVENTS, NONE }

    public static final StepInput NONE = new StepInput(Source.NONE, -1, -1L, -1L);

    /**
     * This input as one number, unique among a task's inputs of both topics (its offset and its
     * topic); -1 for a timer step. A deadline remembers the stamp of the input that armed it.
     */
    public long armStamp() {
        return switch (source) {
            case DISPATCH -> offset << 1;
            case WORKER_EVENTS -> (offset << 1) | 1;
            case NONE -> -1L;
        };
    }
}
