package dev.baton.streams.processor;

import java.util.HashMap;
import java.util.Map;

import dev.baton.schemas.SiteKey;

/**
 * Times a stream thread's commits by the return of its work instead of by a fixed interval (the
 * {@code returns} commit pacing). Every activity waits for two commits: the one that releases its
 * task and the one that publishes its outcome. The completions of the tasks one commit released come
 * back ~12 ms after it starts; an interval commit either starts before they are all in (and they wait
 * a whole cycle) or well after (and they wait for the timer). This asks for the next commit as soon as
 * the last of them has its outcome, and otherwise once {@code fallbackMs} have passed since the last
 * commit started (stragglers, and dispatches while nothing is out).
 *
 * <p>One per stream thread, used only by that thread: its processors report what they release and
 * resolve, and its producer reports each commit's start ({@link CommitSignallingProducer}). It only
 * decides when to ask for a commit; what a commit holds, and exactly-once, stay Kafka Streams'.
 */
final class CommitPacer {

    private static final ThreadLocal<CommitPacer> CURRENT = ThreadLocal.withInitial(CommitPacer::new);
    /** Tags older than this many commits are dropped when the map grows past {@link #MAX_TRACKED}: long activities. */
    private static final long FORGET_AFTER_COMMITS = 100;
    private static final int MAX_TRACKED = 200_000;

    /** The pacer of the calling stream thread. */
    static CommitPacer current() {
        return CURRENT.get();
    }

    /** Site → the number of the commit that carries (or carried) its latest task. */
    private final Map<SiteKey, Long> carriedBy = new HashMap<>();
    /** Commit number → how many of the tasks it carries have no outcome yet; only commits not yet started and the last one. */
    private final Map<Long, Integer> openByCommit = new HashMap<>();
    /** Commits started so far; the next commit to start is {@code commits + 1}. */
    private long commits;
    /** Tasks of the last started commit still waiting for their outcome. */
    private int outstanding;
    /** Something was written since the last commit started. */
    private boolean uncommitted;
    private long lastStartMs;

    /** A task was forwarded: the next commit carries it. */
    void released(SiteKey site) {
        uncommitted = true;
        long carrier = commits + 1;
        Long earlier = carriedBy.put(site, carrier);
        if (earlier != null) {
            openByCommit.computeIfPresent(earlier, (c, n) -> n - 1);
            if (earlier == commits) {
                outstanding--;
            }
        }
        openByCommit.merge(carrier, 1, Integer::sum);
    }

    /**
     * An outcome was forwarded. True when it was the last one the latest commit's tasks were waiting
     * for: the caller should ask for a commit now.
     */
    boolean resolved(SiteKey site) {
        uncommitted = true;
        Long carrier = carriedBy.remove(site);
        if (carrier == null || carrier != commits) {
            if (carrier != null) {
                openByCommit.computeIfPresent(carrier, (c, n) -> n - 1);
            }
            return false;
        }
        return --outstanding == 0;
    }

    /** Anything else was written (history, controls, dead letters): it needs a commit too, but sets no pace. */
    void wrote() {
        uncommitted = true;
    }

    /**
     * The thread's producer is flushing for a commit. Streams flushes once per task in a commit, so
     * only the first flush after something was written counts.
     */
    void commitStarting(long nowMs) {
        if (!uncommitted) {
            return;
        }
        uncommitted = false;
        commits++;
        lastStartMs = nowMs;
        Integer carried = openByCommit.remove(commits);
        outstanding = carried == null ? 0 : carried;
        openByCommit.keySet().removeIf(c -> c < commits);
        if (carriedBy.size() > MAX_TRACKED) {
            carriedBy.values().removeIf(c -> c < commits - FORGET_AFTER_COMMITS);
        }
    }

    /** True when something waits for a commit and the last one started {@code fallbackMs} ago or more. */
    boolean fallbackDue(long nowMs, long fallbackMs) {
        return uncommitted && nowMs - lastStartMs >= fallbackMs;
    }
}
