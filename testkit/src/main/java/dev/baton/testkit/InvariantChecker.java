package dev.baton.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;

/**
 * Audits a cluster from its logs alone: {@code baton.history} and {@code baton.results}.
 *
 * <ul>
 *   <li>every request that history shows (dispatched, joined, republished, refused, unavailable,
 *       invalid, hit by a bug) got exactly one distinct outcome (a request re-sent after its answer
 *       gets an identical copy), and no outcome answers a request history never saw;</li>
 *   <li>every outbox record (an {@code unmatched} relay) is addressed to a request history saw;</li>
 *   <li>when the caller says which request ids it sent, history saw each of them;</li>
 *   <li>every accepted completion or failure reported the generation that was current for its site
 *       at that point of history (no revoked token was accepted);</li>
 *   <li>no park was recorded as a failure, and no outcome was caused by a park.</li>
 * </ul>
 * Reused by the demo, the failure integration tests and the soak.
 */
public final class InvariantChecker {

    /** What the audit found; {@link #ok()} when {@code violations} is empty. */
    public record Report(int requests, int outcomes, int historyEvents, Map<HistoryKind, Long> byKind, List<String> violations) {
        public boolean ok() {
            return violations.isEmpty();
        }

        @Override
        public String toString() {
            return requests + " requests, " + outcomes + " outcomes, " + historyEvents + " history events; "
                    + (ok() ? "all invariants hold" : violations.size() + " violations: " + violations.stream().limit(10).toList());
        }
    }

    private static final Set<HistoryKind> REQUEST_KINDS = Set.of(HistoryKind.DISPATCHED, HistoryKind.DUPLICATE_IGNORED,
            HistoryKind.OUTCOME_REPUBLISHED, HistoryKind.SITE_COLLISION, HistoryKind.ATTEMPT_REFUSED, HistoryKind.UNAVAILABLE,
            HistoryKind.INVALID_DISPATCH, HistoryKind.INTERNAL_ERROR);

    private InvariantChecker() {
    }

    public static Report check(String bootstrapServers) {
        return check(bootstrapServers, Set.of());
    }

    /** As {@link #check(String)}; besides, each of the request ids {@code sent} must be one history saw. */
    public static Report check(String bootstrapServers, Set<String> sent) {
        return check(bootstrapServers, sent, false);
    }

    /**
     * As {@link #check(String, Set)}, for a streams app running {@code atLeastOnce}: history may then
     * miss the events of steps whose state survived a crash while their outputs did not (and repeat
     * others), so an accepted report may name a later generation than the last one history recorded.
     * Outcomes are held to the same rule in both modes: one distinct outcome per request.
     */
    public static Report check(String bootstrapServers, Set<String> sent, boolean atLeastOnce) {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + bootstrapServers, Map.of())) {
            EventSerde<HistoryEvent> historySerde = EventSerde.of(HistoryEvent.class, registry);
            EventSerde<Outcome> outcomeSerde = EventSerde.of(Outcome.class, registry);
            List<HistoryEvent> history = TopicScan.readAll(bootstrapServers, BatonTopics.HISTORY).stream().map(historySerde::decode).toList();
            List<Outcome> outcomes = TopicScan.readAll(bootstrapServers, BatonTopics.RESULTS).stream().map(outcomeSerde::decode).toList();
            return check(history, outcomes, sent, atLeastOnce);
        }
    }

    public static Report check(List<HistoryEvent> history, List<Outcome> outcomes) {
        return check(history, outcomes, Set.of());
    }

    /** @param sent request ids a client says it sent; empty when it does not know them */
    public static Report check(List<HistoryEvent> history, List<Outcome> outcomes, Set<String> sent) {
        return check(history, outcomes, sent, false);
    }

    public static Report check(List<HistoryEvent> history, List<Outcome> outcomes, Set<String> sent, boolean atLeastOnce) {
        List<String> violations = new ArrayList<>();
        Set<String> requests = new HashSet<>();
        Map<String, SiteKey> siteOfRequest = new HashMap<>();
        Map<SiteKey, List<HistoryKind>> siteHistory = new HashMap<>();
        for (HistoryEvent e : history) {
            SiteKey site = SiteKey.of(e.getSite());
            siteHistory.computeIfAbsent(site, k -> new ArrayList<>()).add(e.getKind());
            if (REQUEST_KINDS.contains(e.getKind()) && e.getRequestId() != null) {
                requests.add(e.getRequestId());
                siteOfRequest.putIfAbsent(e.getRequestId(), site);
            }
        }
        // A request re-sent after its answer gets the same answer again: identical copies count once.
        Map<String, Long> answers = outcomes.stream().filter(o -> !o.getUnmatched())
                .collect(Collectors.groupingBy(Outcome::getRequestId, Collectors.mapping(InvariantChecker::content,
                        Collectors.collectingAndThen(Collectors.toSet(), set -> (long) set.size()))));
        for (String r : requests) {
            long n = answers.getOrDefault(r, 0L);
            if (n != 1) {
                // Where the site stopped is what a stuck request's investigation starts from.
                violations.add("request " + r + " got " + n + " distinct outcomes, expected exactly 1 (its site's history: "
                        + siteHistory.get(siteOfRequest.get(r)) + ")");
            }
        }
        answers.keySet().stream().filter(r -> !requests.contains(r))
                .forEach(r -> violations.add("outcome for request " + r + " that history never saw"));
        outcomes.stream().filter(o -> o.getUnmatched() && !requests.contains(o.getRequestId()))
                .forEach(o -> violations.add("outbox record for request " + o.getRequestId() + " (site " + SiteKey.of(o.getSite())
                        + ") that history never saw: a relay must go to the caller of the run"));
        sent.stream().filter(r -> !requests.contains(r)).limit(100)
                .forEach(r -> violations.add("request " + r + " was sent, but history never saw it"));
        checkGenerations(history, violations, atLeastOnce);
        checkParks(history, outcomes, violations);
        Map<HistoryKind, Long> byKind = history.stream().collect(Collectors.groupingBy(HistoryEvent::getKind, Collectors.counting()));
        return new Report(requests.size(), outcomes.size(), history.size(), byKind, violations);
    }

    /** Folds each site's generations in log order; an accepted report must name the current one. */
    private static void checkGenerations(List<HistoryEvent> history, List<String> violations, boolean atLeastOnce) {
        Map<SiteKey, int[]> current = new HashMap<>(); // {attempt, generation}
        for (HistoryEvent e : history) {
            SiteKey site = SiteKey.of(e.getSite());
            switch (e.getKind()) {
                case DISPATCHED -> current.put(site, new int[] {e.getAttempt(), 1});
                case PARKED, TRANSPORT_LOST -> {
                    if (e.getReason() == null || !e.getReason().startsWith("transport-exhausted:")) {
                        current.put(site, new int[] {e.getAttempt(), e.getGeneration() == null ? 0 : e.getGeneration()});
                    }
                }
                case COMPLETED, FAILED -> {
                    int[] cur = current.get(site);
                    Integer gen = e.getGeneration();
                    // At-least-once history is not fenced: a crash can lose a step's history while its row survives, and an
                    // instance frozen past its session sends what it held after the new owner wrote on (h/adv23x), so a
                    // completion may name a generation whose DISPATCHED or redelivery came late or never.
                    boolean later = atLeastOnce && gen != null
                            && (cur == null || e.getAttempt() > cur[0] || (e.getAttempt() == cur[0] && gen > cur[1]));
                    if (later) {
                        current.put(site, new int[] {e.getAttempt(), gen});
                    } else if (cur == null || cur[0] != e.getAttempt() || gen == null || cur[1] != gen) {
                        violations.add("site " + site + ": accepted " + e.getKind() + " of attempt " + e.getAttempt() + " generation " + gen
                                + " while the current was " + (cur == null ? "none" : "attempt " + cur[0] + " generation " + cur[1]));
                    }
                }
                default -> { }
            }
        }
    }

    private static void checkParks(List<HistoryEvent> history, List<Outcome> outcomes, List<String> violations) {
        Set<String> parked = new HashSet<>();
        for (HistoryEvent e : history) {
            String key = e.getSite().toString() + "#" + e.getAttempt() + "#" + e.getGeneration();
            if (e.getKind() == HistoryKind.PARKED) {
                // the PARKED event names the new generation; the parked one is the one before it
                parked.add(e.getSite().toString() + "#" + e.getAttempt() + "#" + (e.getGeneration() - 1));
            } else if ((e.getKind() == HistoryKind.FAILED || e.getKind() == HistoryKind.TIMED_OUT) && parked.contains(key)) {
                violations.add("a failure was recorded for parked generation " + key);
            }
        }
        // A park's own report reads "parked: worker ... is draining"; an outcome made of it would read so after its prefix.
        // Any reason merely containing the word (a handler's "customer parked the order") was flagged before (h/adv22w).
        Set<String> parkedSites = new HashSet<>();
        history.stream().filter(e -> e.getKind() == HistoryKind.PARKED).forEach(e -> parkedSites.add(e.getSite().toString()));
        outcomes.stream().filter(o -> o.getReason() != null && parkedSites.contains(o.getSite().toString())
                        && detail(o.getReason()).startsWith("parked"))
                .forEach(o -> violations.add("outcome caused by a park: " + o.getRequestId() + " " + o.getReason()));
    }

    /** A reason without its vocabulary prefix. */
    private static String detail(String reason) {
        String prefix = Reasons.prefixOf(reason);
        return reason.substring(prefix.length()).trim();
    }

    /** What an outcome says, leaving out when and which worker: identical answers are one answer. */
    private static String content(Outcome o) {
        return o.getStatus() + "|" + o.getAttempt() + "|" + o.getReason() + "|" + o.getOutput();
    }
}
