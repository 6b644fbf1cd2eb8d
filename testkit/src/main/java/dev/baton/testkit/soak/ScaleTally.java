package dev.baton.testkit.soak;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

import dev.baton.schemas.SiteKey;

/**
 * The scale soak's ledger: activity {@code i} is site {@code (scale, s-<i>, a)}, sent once under one
 * request id, and must be answered exactly once (a copy through the unmatched handler counts as a
 * second answer). Indexed by number rather than by request id, so a
 * million activities cost a few arrays. Thread-safe.
 */
public final class ScaleTally {

    public static final String NAMESPACE = "scale";
    public static final String ACTIVITY = "a";
    private static final String PREFIX = "s-";

    /** How the answers stand: {@link #ok()} when every request sent got exactly one outcome and none came unasked. */
    public record Verdict(int sent, int exactlyOnce, int none, int moreThanOnce, int strays, int completed) {
        public boolean ok() {
            return none == 0 && moreThanOnce == 0 && strays == 0 && exactlyOnce == sent;
        }

        /**
         * {@link #ok()}, or with {@code backlogAllowed} (after a bounded drain) requests with no outcome
         * yet are the backlog left, not a failure: none answered twice, no strays, the rest answered once.
         */
        public boolean ok(boolean backlogAllowed) {
            return backlogAllowed ? moreThanOnce == 0 && strays == 0 && exactlyOnce + none == sent : ok();
        }

        @Override
        public String toString() {
            return sent + " requests sent, " + exactlyOnce + " answered exactly once (" + completed + " completed), " + none + " with no outcome, "
                    + moreThanOnce + " with more than one, " + strays + " outcomes for requests never sent";
        }
    }

    private final AtomicReferenceArray<String> requestIds;
    private final AtomicIntegerArray sentFlags;
    private final AtomicIntegerArray answers;
    private final AtomicIntegerArray completedAnswers;
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicInteger answered = new AtomicInteger();
    private final AtomicInteger strays = new AtomicInteger();

    public ScaleTally(int capacity) {
        this.requestIds = new AtomicReferenceArray<>(capacity);
        this.sentFlags = new AtomicIntegerArray(capacity);
        this.answers = new AtomicIntegerArray(capacity);
        this.completedAnswers = new AtomicIntegerArray(capacity);
    }

    public static SiteKey site(int i) {
        return new SiteKey(NAMESPACE, PREFIX + i, ACTIVITY);
    }

    /** The activity number of a site of this tally; -1 for any other site. */
    public static int indexOf(SiteKey site) {
        if (!NAMESPACE.equals(site.namespace()) || !ACTIVITY.equals(site.activityId()) || !site.workflowId().startsWith(PREFIX)) {
            return -1;
        }
        try {
            return Integer.parseInt(site.workflowId().substring(PREFIX.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public int capacity() {
        return requestIds.length();
    }

    /** Activity {@code i} was handed to the client (its request id may be known only later, see {@link #named}). */
    public void sent(int i) {
        if (sentFlags.getAndSet(i, 1) == 0) {
            sent.incrementAndGet();
        }
    }

    /** Activity {@code i}'s request id, once the client says it. */
    public void named(int i, String requestId) {
        requestIds.compareAndSet(i, null, requestId);
    }

    /**
     * An outcome arrived for {@code site} and {@code requestId}. One for a site this tally never sent,
     * or for another request id than the one its activity was sent under, is a stray; the first
     * outcome of an activity whose id is not known yet names it.
     */
    public void answered(SiteKey site, String requestId, boolean completed) {
        int i = indexOf(site);
        if (i < 0 || i >= capacity() || sentFlags.get(i) == 0) {
            strays.incrementAndGet();
            return;
        }
        named(i, requestId);
        if (!requestId.equals(requestIds.get(i))) {
            strays.incrementAndGet();
            return;
        }
        if (answers.getAndIncrement(i) == 0) {
            answered.incrementAndGet();
        }
        if (completed) {
            completedAnswers.incrementAndGet(i);
        }
    }

    public int sent() {
        return sent.get();
    }

    /** Requests with at least one outcome. */
    public int answered() {
        return answered.get();
    }

    public Set<String> requestIds() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < capacity(); i++) {
            String id = requestIds.get(i);
            if (id != null) {
                ids.add(id);
            }
        }
        return ids;
    }

    public Verdict verdict() {
        int once = 0;
        int none = 0;
        int more = 0;
        int completed = 0;
        for (int i = 0; i < capacity(); i++) {
            if (sentFlags.get(i) == 0) {
                continue;
            }
            int n = answers.get(i);
            if (n == 0) {
                none++;
            } else if (n == 1) {
                once++;
                if (completedAnswers.get(i) == 1) {
                    completed++;
                }
            } else {
                more++;
            }
        }
        return new Verdict(sent(), once, none, more, strays.get(), completed);
    }

    /**
     * The invariant checker's violations, less those that only say a request is still unanswered
     * ("got 0 distinct outcomes") when {@code unansweredAllowed}: after a bounded drain those are the
     * backlog left, counted apart, not broken promises.
     */
    public static List<String> violationsBeyondBacklog(List<String> violations, boolean unansweredAllowed) {
        return violations.stream().filter(v -> !(unansweredAllowed && v.startsWith("request ") && v.contains(" got 0 distinct outcomes"))).toList();
    }
}
