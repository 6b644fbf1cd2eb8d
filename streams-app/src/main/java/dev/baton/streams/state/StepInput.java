package dev.baton.streams.state;

/**
 * The input record a step decides: which of the site's two input topics, its partition and its
 * offset. A timer step has none ({@link #NONE}). Rows remember the last offset of each topic that
 * wrote them, which is how a step tells a record it applied already (reprocessed after an
 * at-least-once restart) from a new one.
 */
public record StepInput(Source source, int partition, long offset) {

    /** The two input topics of the site processor. */
    public enum Source { DISPATCH, WORKER_EVENTS, NONE }

    public static final StepInput NONE = new StepInput(Source.NONE, -1, -1L);
}
