package dev.baton.testkit.soak;

import java.util.ArrayList;
import java.util.List;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.DispatchUnacknowledgedException;

/**
 * One request the soak sent and every outcome the client got for it (more than one is a failure of
 * the one-outcome rule). Thread-safe: outcomes arrive on the client's result thread.
 */
public final class SentRequest {

    private final int activity;
    private final Expectation expected;
    private final long sentNanos = System.nanoTime();
    private final List<ActivityOutcome> outcomes = new ArrayList<>();
    private volatile String requestId;
    private Throwable error;
    private long answeredNanos;

    SentRequest(int activity, Expectation expected, String requestId) {
        this.activity = activity;
        this.expected = expected;
        this.requestId = requestId;
    }

    public int activity() {
        return activity;
    }

    public Expectation expected() {
        return expected;
    }

    /** The request id: chosen by the soak for a raw send, learnt from the first outcome for a client dispatch (null until then). */
    public String requestId() {
        return requestId;
    }

    synchronized void answered(ActivityOutcome o) {
        if (outcomes.isEmpty()) {
            answeredNanos = System.nanoTime();
            requestId = o.requestId();
        }
        outcomes.add(o);
    }

    synchronized void failed(Throwable e) {
        if (error == null) {
            error = e;
            answeredNanos = System.nanoTime();
        }
        // A dispatch the broker did not acknowledge may still run: its outcome, if one comes, answers this request, not a
        // stray (h/adv26 saw such outcomes counted as "for requests never sent"). One that was not written keeps no id:
        // history must not be expected to see it.
        for (Throwable t = e; t != null && requestId == null; t = t.getCause()) {
            if (t instanceof DispatchUnacknowledgedException d) {
                requestId = d.requestId();
            }
        }
    }

    /** An outcome or a client error arrived. */
    public synchronized boolean settled() {
        return !outcomes.isEmpty() || error != null;
    }

    public synchronized List<ActivityOutcome> outcomes() {
        return List.copyOf(outcomes);
    }

    public synchronized Throwable error() {
        return error;
    }

    /** Milliseconds from the send to the first answer, or -1 while none came. */
    public synchronized long answerMillis() {
        return settled() ? (answeredNanos - sentNanos) / 1_000_000 : -1;
    }
}
