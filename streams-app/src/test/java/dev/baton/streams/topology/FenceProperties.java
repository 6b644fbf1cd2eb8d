package dev.baton.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.baton.events.ActivityTask;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.SiteKey;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;

/**
 * Random interleavings of dispatches (attempts 1..4), leases, completions and terminal failures
 * with current, stale or forged tokens, against the real topology. A failure prints its seed;
 * {@code @Property(seed = "...")} replays it.
 */
class FenceProperties {

    enum Token { CURRENT, STALE, FORGED }

    enum Kind { DISPATCH, DISPATCH_OTHER_KEY, LEASE, COMPLETE, FAIL }

    record Op(Kind kind, int site, int attempt, Token token) {
    }

    @Provide
    Arbitrary<List<Op>> interleavings() {
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.of(Kind.class), Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(1, 4), Arbitraries.of(Token.class)).as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 150, shrinking = ShrinkingMode.BOUNDED)
    void fencesHoldForAnyInterleaving(@ForAll("interleavings") List<Op> ops) {
        try (SiteHarness h = new SiteHarness()) {
            Map<Integer, List<String>> tokens = new HashMap<>();
            Map<Integer, ActivityTask> current = new HashMap<>();
            List<String> acceptedTokensThatWereNotCurrent = new ArrayList<>();
            List<Outcome> outcomes = new ArrayList<>();
            int requests = 0;
            for (Op op : ops) {
                SiteKey site = SiteHarness.site("s" + op.site());
                switch (op.kind()) {
                    case DISPATCH, DISPATCH_OTHER_KEY -> {
                        var req = SiteHarness.request(site, op.attempt(), "req-" + requests++);
                        if (op.kind() == Kind.DISPATCH_OTHER_KEY) {
                            req.setIdempotencyKey("other-" + requests);
                        }
                        h.send(req.build());
                    }
                    case LEASE, COMPLETE, FAIL -> {
                        ActivityTask task = current.get(op.site());
                        if (task == null) {
                            continue;
                        }
                        String token = pick(op.token(), tokens.get(op.site()));
                        boolean isCurrent = token.equals(task.getToken());
                        int before = outcomes.size();
                        if (op.kind() == Kind.LEASE) {
                            h.report(task, WorkerEventKind.LEASED, "w", token, null, null);
                        } else if (op.kind() == Kind.COMPLETE) {
                            h.report(task, WorkerEventKind.COMPLETED, "w", token, SiteHarness.payload("x"), null);
                        } else {
                            h.report(task, WorkerEventKind.FAILED, "w", token, null, "terminal: boom");
                        }
                        outcomes.addAll(h.results());
                        boolean accepted = outcomes.subList(before, outcomes.size()).stream()
                                .anyMatch(o -> !o.getUnmatched() && SiteKey.of(o.getSite()).equals(site)
                                        && (o.getStatus() == OutcomeStatus.COMPLETED || "terminal: boom".equals(o.getReason())));
                        if (accepted && !isCurrent) {
                            acceptedTokensThatWereNotCurrent.add(token);
                        }
                    }
                    default -> throw new IllegalStateException();
                }
                for (ActivityTask t : h.tasks()) {
                    int idx = Integer.parseInt(t.getSite().getActivityId().substring(1));
                    tokens.computeIfAbsent(idx, k -> new ArrayList<>()).add(t.getToken());
                    current.put(idx, t);
                }
                outcomes.addAll(h.results());
            }
            List<HistoryEvent> history = new ArrayList<>(h.history());

            assertThat(acceptedTokensThatWereNotCurrent).as("no accepted completion carries a superseded or forged token").isEmpty();
            assertAtMostOneAcceptedCompletionPerAttempt(history);
            assertEverySupersededCallerGetsExactlyOneSupersededOutcome(history, outcomes);
            assertEveryRequestGetsAtMostOneOutcome(outcomes);
            for (int i = 0; i < 3; i++) {
                SiteKey site = SiteHarness.site("s" + i);
                assertThat(fold(history, site)).as("history of " + site + " replays to the store").isEqualTo(stored(h.siteState(site)));
            }
        }
    }

    private static String pick(Token choice, List<String> seen) {
        return switch (choice) {
            case CURRENT -> seen.get(seen.size() - 1);
            case STALE -> seen.size() > 1 ? seen.get(0) : CompletionToken.random().value();
            case FORGED -> CompletionToken.random().value();
        };
    }

    private static void assertAtMostOneAcceptedCompletionPerAttempt(List<HistoryEvent> history) {
        Map<String, Integer> resolutions = new HashMap<>();
        for (HistoryEvent e : history) {
            if (e.getKind() == HistoryKind.COMPLETED || e.getKind() == HistoryKind.FAILED) {
                resolutions.merge(e.getSite().getActivityId() + "#" + e.getAttempt(), 1, Integer::sum);
            }
        }
        assertThat(resolutions).allSatisfy((k, n) -> assertThat(n).as("accepted completions of " + k).isEqualTo(1));
    }

    private static void assertEverySupersededCallerGetsExactlyOneSupersededOutcome(List<HistoryEvent> history, List<Outcome> outcomes) {
        for (HistoryEvent e : history) {
            if (e.getKind() == HistoryKind.SUPERSEDED) {
                long n = outcomes.stream().filter(o -> o.getRequestId().equals(e.getRequestId())
                        && o.getReason() != null && o.getReason().startsWith("superseded:")).count();
                assertThat(n).as("superseded outcomes for " + e.getRequestId()).isEqualTo(1);
            }
        }
    }

    private static void assertEveryRequestGetsAtMostOneOutcome(List<Outcome> outcomes) {
        Map<String, Integer> perRequest = new HashMap<>();
        outcomes.stream().filter(o -> !o.getUnmatched()).forEach(o -> perRequest.merge(o.getRequestId(), 1, Integer::sum));
        assertThat(perRequest).allSatisfy((id, n) -> assertThat(n).as("outcomes for " + id).isEqualTo(1));
    }

    /** (live?, attempt) of a site as its history tells it, or empty if it was never dispatched. */
    private static Optional<String> fold(List<HistoryEvent> history, SiteKey site) {
        String state = null;
        for (HistoryEvent e : history) {
            if (!SiteKey.of(e.getSite()).equals(site)) {
                continue;
            }
            switch (e.getKind()) {
                case DISPATCHED -> state = "live@" + e.getAttempt();
                case COMPLETED, FAILED, CANCELLED, TIMED_OUT -> state = "resolved@" + e.getAttempt();
                default -> { }
            }
        }
        return Optional.ofNullable(state);
    }

    private static Optional<String> stored(Optional<SiteState> state) {
        return state.map(s -> (s.getState() == SiteStatus.RESOLVED ? "resolved@" : "live@") + s.getAttempt());
    }
}
