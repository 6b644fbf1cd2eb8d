package dev.baton.testkit.soak;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.UnmatchedResultHandler;

/**
 * The client side of the soak's per-request liveness check: every request it sends is registered
 * here with the outcomes its role allows, and every outcome the client receives is counted against
 * its request id: from the request's future, or, for results no future waits for (a raw send, a
 * second answer), from the client's {@link UnmatchedResultHandler}. Outcomes flagged
 * {@code unmatched} are the outbox, not answers. {@link #verify} then says, per request, whether it
 * got exactly one distinct outcome of an allowed kind (the same answer given again to a re-sent
 * request counts once), and whether the callers of one run got the same one.
 * Thread-safe.
 */
public final class SoakLedger {

    private final List<SentRequest> requests = new CopyOnWriteArrayList<>();
    private final Map<String, SentRequest> raw = new ConcurrentHashMap<>();
    private final List<SentRequest[]> sameRun = new CopyOnWriteArrayList<>();
    private final List<ActivityOutcome> unclaimed = new CopyOnWriteArrayList<>();
    private final List<ActivityOutcome> outbox = new CopyOnWriteArrayList<>();

    /** A request sent through the client: its id is learnt from its outcome. */
    SentRequest expect(int activity, Expectation expected) {
        SentRequest r = new SentRequest(activity, expected, null);
        requests.add(r);
        return r;
    }

    /** A request sent with an id of the soak's choosing; its outcomes reach the unmatched handler. */
    SentRequest expectRaw(int activity, Expectation expected, String requestId) {
        SentRequest r = new SentRequest(activity, expected, requestId);
        raw.put(requestId, r);
        requests.add(r);
        return r;
    }

    /** Counts the future's outcome (or error) for {@code r}. */
    void track(SentRequest r, CompletableFuture<ActivityOutcome> future) {
        future.whenComplete((o, e) -> {
            if (e != null) {
                r.failed(e);
            } else {
                r.answered(o);
            }
        });
    }

    /** {@code a} and {@code b} are callers of one run: they must get the same outcome. */
    void sameOutcome(SentRequest a, SentRequest b) {
        sameRun.add(new SentRequest[] {a, b});
    }

    /** The client's handler for results no future waits for. */
    public UnmatchedResultHandler unmatchedHandler() {
        return o -> {
            if (o.unmatched()) {
                outbox.add(o);
                return;
            }
            SentRequest r = raw.get(o.requestId());
            if (r != null) {
                r.answered(o);
            } else {
                unclaimed.add(o); // a second answer to a dispatched request, or a stray: sorted out by verify
            }
        };
    }

    public int sent() {
        return requests.size();
    }

    public int settled() {
        return (int) requests.stream().filter(SentRequest::settled).count();
    }

    /** Activities all of whose requests settled. */
    public int activitiesSettled() {
        Map<Integer, Boolean> all = new HashMap<>();
        for (SentRequest r : requests) {
            all.merge(r.activity(), r.settled(), Boolean::logicalAnd);
        }
        return (int) all.values().stream().filter(b -> b).count();
    }

    /** The request ids known on this side: every raw send and every answered dispatch. */
    public Set<String> requestIds() {
        return requests.stream().map(SentRequest::requestId).filter(Objects::nonNull).collect(Collectors.toSet());
    }

    public List<ActivityOutcome> outbox() {
        return List.copyOf(outbox);
    }

    /** What the ledger found; {@link #ok()} when nothing is wrong. */
    public record Verdict(int requests, int exactlyOnce, int none, int moreThanOnce, int wrongKind, int notSameAsRun, int strays,
                          Map<String, Map<String, Integer>> kindsByRole, Map<String, long[]> answerMillisByRole,
                          Map<String, Integer> outboxByRole, List<String> violations) {
        public boolean ok() {
            return violations.isEmpty();
        }
    }

    /** Checks every request; call once the client has stopped receiving. */
    public Verdict verify() {
        Map<String, SentRequest> byId = new HashMap<>();
        requests.stream().filter(r -> r.requestId() != null).forEach(r -> byId.put(r.requestId(), r));
        List<String> violations = new ArrayList<>();
        int strays = claimUnclaimed(byId, violations);
        Tally tally = new Tally();
        requests.forEach(r -> tally.add(r, violations));
        int notSame = checkSameRun(violations);
        Map<String, Integer> outboxByRole = outboxByRole(byId, violations);
        Map<String, long[]> percentiles = new TreeMap<>();
        tally.millis.forEach((role, ms) -> percentiles.put(role, percentiles(ms)));
        return new Verdict(requests.size(), tally.once, tally.none, tally.more, tally.wrong, notSame, strays, tally.kinds, percentiles,
                outboxByRole, violations);
    }

    /** Results no future waited for: a second answer to a request the soak sent, or a stray (counted, returned). */
    private int claimUnclaimed(Map<String, SentRequest> byId, List<String> violations) {
        int strays = 0;
        for (ActivityOutcome o : unclaimed) {
            SentRequest r = byId.get(o.requestId());
            if (r != null) {
                r.answered(o);
            } else {
                strays++;
                violations.add("an outcome for request " + o.requestId() + " this soak never sent: " + o);
            }
        }
        return strays;
    }

    /** Which callers the outbox relays went to; a relay to a request this soak never sent is a violation. */
    private Map<String, Integer> outboxByRole(Map<String, SentRequest> byId, List<String> violations) {
        Map<String, Integer> byRole = new TreeMap<>();
        for (ActivityOutcome o : outbox) {
            SentRequest r = byId.get(o.requestId());
            if (r == null) {
                violations.add("an outbox relay for request " + o.requestId() + " this soak never sent: " + o);
            } else {
                byRole.merge(r.expected().role(), 1, Integer::sum);
            }
        }
        return byRole;
    }

    /** Per-request counts: exactly one outcome, none, more than one, of a kind the role does not allow; kinds and answer times by role. */
    private static final class Tally {
        int once;
        int none;
        int more;
        int wrong;
        final Map<String, Map<String, Integer>> kinds = new TreeMap<>();
        final Map<String, List<Long>> millis = new TreeMap<>();

        void add(SentRequest r, List<String> violations) {
            List<ActivityOutcome> got = distinct(r.outcomes());
            String role = r.expected().role();
            String kind = got.isEmpty() ? (r.error() == null ? "no outcome" : "client error: " + r.error().getClass().getSimpleName())
                    : kindOf(got.get(0));
            kinds.computeIfAbsent(role, k -> new TreeMap<>()).merge(kind, 1, Integer::sum);
            if (r.answerMillis() >= 0) {
                millis.computeIfAbsent(role, k -> new ArrayList<>()).add(r.answerMillis());
            }
            if (got.isEmpty()) {
                none++;
                violations.add(role + " of activity " + r.activity() + ": " + kind + " (expected exactly one outcome)");
                return;
            }
            if (got.size() == 1) {
                once++;
            } else {
                more++;
                violations.add(role + " request " + r.requestId() + " of activity " + r.activity() + " got " + got.size() + " outcomes: " + got);
            }
            if (!r.expected().accepts(got.get(0))) {
                wrong++;
                violations.add(role + " of activity " + r.activity() + " got " + got.get(0) + "; allowed: " + r.expected().allowed());
            }
        }
    }

    /** Outcomes that say different things; the same answer given again (a request re-sent after it) counts once. */
    private static List<ActivityOutcome> distinct(List<ActivityOutcome> outcomes) {
        Map<String, ActivityOutcome> byContent = new LinkedHashMap<>();
        for (ActivityOutcome o : outcomes) {
            byContent.putIfAbsent(o.completed() + "|" + o.attempt() + "|" + o.reason() + "|" + o.outputAsString(), o);
        }
        return List.copyOf(byContent.values());
    }

    private int checkSameRun(List<String> violations) {
        int notSame = 0;
        for (SentRequest[] pair : sameRun) {
            List<ActivityOutcome> a = pair[0].outcomes();
            List<ActivityOutcome> b = pair[1].outcomes();
            if (!a.isEmpty() && !b.isEmpty() && !sameOutcome(a.get(0), b.get(0))) {
                notSame++;
                violations.add(pair[1].expected().role() + " of activity " + pair[1].activity() + " got " + b.get(0)
                        + " but the run's first caller got " + a.get(0) + " (callers of one run get one outcome)");
            }
        }
        return notSame;
    }

    /** The same outcome: status, attempt, reason and output (the worker is not part of it: a republished outcome does not name one). */
    private static boolean sameOutcome(ActivityOutcome a, ActivityOutcome b) {
        return a.completed() == b.completed() && a.attempt() == b.attempt() && Objects.equals(a.reason(), b.reason())
                && Arrays.equals(a.output(), b.output());
    }

    static String kindOf(ActivityOutcome o) {
        return o.completed() ? "completed" : o.reasonPrefix().isEmpty() ? "failed" : o.reasonPrefix();
    }

    /** {p50, max} of {@code ms}. */
    private static long[] percentiles(List<Long> ms) {
        List<Long> sorted = new ArrayList<>(ms);
        sorted.sort(null);
        return new long[] {sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1)};
    }
}
