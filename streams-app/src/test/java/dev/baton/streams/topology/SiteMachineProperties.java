package dev.baton.streams.topology;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.baton.events.DispatchCommand;
import dev.baton.events.RetryPolicy;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerEventKind;
import dev.baton.streams.model.SiteModel.SiteView;
import dev.baton.streams.topology.SiteMachineWorld.TokenChoice;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.ActionChainArbitrary;
import net.jqwik.api.state.Transformer;

/**
 * The site state machine, model-checked: random sequences of what callers, workers (honest,
 * late, zombie and hostile), the worker census, the clock and crashes of the stream task do, fed to
 * the real topology ({@link SiteMachineDriver}) and to the reference model
 * ({@link dev.baton.streams.model.SiteModel}). After every commit, what became visible must equal
 * what the model expected, and the safety invariants must hold on the observations alone; at the end
 * every site is let finish and every request must have exactly one outcome (liveness).
 *
 * <p>A failure prints the action chain and its seed; {@code @Property(seed = "...")} replays it, and
 * jqwik shrinks it first. Tries come from {@code jqwik.tries.default} (junit-platform.properties:
 * CI's ~100,000 steps; {@code mvn -Pexhaustive} raises it to 10,000,000 steps).
 */
class SiteMachineProperties {

    static final int STEPS_PER_CHAIN = 400;
    private static final AtomicLong STEPS = new AtomicLong();
    private static final AtomicLong CHAINS = new AtomicLong();
    private SiteMachineWorld world;
    /** Set while the chains of one mode are built (see {@link #thenCommit()}). */
    private boolean atLeastOnceChains;

    @Property
    void everyCallerGetsExactlyOneOutcome(@ForAll("chains") ActionChain<SiteMachineWorld> chain) {
        run(chain);
    }

    /**
     * The same under at-least-once processing, where a crash may leave the state ahead of the input
     * and outputs lost or repeated: every caller gets one outcome, possibly more than once, never two
     * different ones.
     */
    @Property
    void atLeastOnceEveryCallerGetsOneOutcome(@ForAll("atLeastOnceChains") ActionChain<SiteMachineWorld> chain) {
        run(chain);
    }

    private static void run(ActionChain<SiteMachineWorld> chain) {
        SiteMachineWorld end = chain.run();
        try {
            end.finish();
        } catch (AssertionError e) {
            // A liveness failure happens after the chain: name its actions, which jqwik prints only for failures inside it.
            System.out.println("liveness failed: " + e.getMessage() + "\n  " + String.join("\n  ", chain.transformations()));
            throw new AssertionError(e.getMessage() + "\nafter the actions " + chain.transformations(), e);
        }
        STEPS.addAndGet(end.steps());
        CHAINS.incrementAndGet();
    }

    @AfterTry
    void closeWorld() {
        if (world != null) {
            world.close();
            world = null;
        }
    }

    @AfterContainer
    static void printSteps() {
        System.out.printf("site machine model check: %,d steps in %,d action chains that passed%n", STEPS.get(), CHAINS.get());
    }

    @Provide
    Arbitrary<ActionChain<SiteMachineWorld>> chains() {
        return chains(false);
    }

    @Provide
    Arbitrary<ActionChain<SiteMachineWorld>> atLeastOnceChains() {
        return chains(true);
    }

    private Arbitrary<ActionChain<SiteMachineWorld>> chains(boolean atLeastOnce) {
        atLeastOnceChains = atLeastOnce;
        ActionChainArbitrary<SiteMachineWorld> chains = ActionChain.startWith(() -> {
            world = new SiteMachineWorld(atLeastOnce);
            return world;
        });
        return chains
                .withAction(6, independent(newRun()))
                .withAction(4, independent(joinOrTakeOver()))
                .withAction(2, independent(resend()))
                .withAction(1, independent(cancel()))
                .withAction(12, independent(report()))
                .withAction(5, independent(advance()))
                .withAction(2, independent(census()))
                .withAction(2, independent(commit()))
                .withAction(atLeastOnce ? 3 : 1, independent(crash()))
                .withMaxTransformations(STEPS_PER_CHAIN);
    }

    private static Action.Independent<SiteMachineWorld> independent(Arbitrary<Transformer<SiteMachineWorld>> transformers) {
        return () -> transformers;
    }

    private static Arbitrary<String> site() {
        return Arbitraries.of(SiteMachineWorld.SITES);
    }

    /**
     * Whether an action commits right after it. At-least-once commits after one action in six, not
     * three in four, and crashes three times as often: what a crash can do there (a row ahead of
     * several inputs to its site, some of their answers delivered) needs several inputs between two
     * commits, and a crash before the next.
     */
    private Arbitrary<Boolean> thenCommit() {
        return atLeastOnceChains ? Arbitraries.frequency(Tuple.of(1, true), Tuple.of(5, false))
                : Arbitraries.frequency(Tuple.of(3, true), Tuple.of(1, false));
    }

    /** A new request for a site: mostly ordinary, sometimes pinned, timed, with its own policy, or misdirected. */
    private Arbitrary<Transformer<SiteMachineWorld>> newRun() {
        Arbitrary<String> queue = Arbitraries.frequencyOf(
                Tuple.of(20, Arbitraries.just("payments")), Tuple.of(3, Arbitraries.just("mail")),
                Tuple.of(1, Arbitraries.of("ghost", SiteMachineDriver.EXPLODING_QUEUE, "bad.queue")));
        Arbitrary<String> node = Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.of("n1", "n2")), Tuple.of(1, Arbitraries.just("n9")))
                .injectNull(0.8);
        Arbitrary<Integer> attempt = Arbitraries.frequency(Tuple.of(12, 1), Tuple.of(2, 2), Tuple.of(1, 0))
                .map(e -> e);
        return Combinators.combine(site(), queue, node, attempt, timeouts(), policy(), Arbitraries.integers().between(0, 9), thenCommit())
                .as((site, q, n, a, t, p, keyDice, commit) -> Transformer.mutate("new run of " + site + " on " + q + (n == null ? "" : "/" + n)
                        + " attempt " + a + " t=" + t + " p=" + p + " key=" + keyDice + " commit=" + commit, w -> {
                    DispatchCommand.Builder r = w.request(site, a).setQueue(q).setNode(SiteMachineDriver.EXPLODING_QUEUE.equals(q) ? null : n)
                            .setTimeouts(t).setRetryPolicy(p);
                    if (keyDice == 0) {
                        r.setIdempotencyKey("other-key");
                    }
                    w.send(r.build());
                    commitIf(w, commit);
                }));
    }

    /** A request naming a live site's attempts: joining (same key), a lower or higher attempt, another key. */
    private Arbitrary<Transformer<SiteMachineWorld>> joinOrTakeOver() {
        Arbitrary<Integer> shift = Arbitraries.frequency(Tuple.of(6, 0), Tuple.of(3, 1), Tuple.of(2, -1))
                .map(e -> e);
        return Combinators.combine(site(), shift, Arbitraries.integers().between(0, 3), thenCommit())
                .as((site, s, dice, commit) -> Transformer.mutate("request " + site + " attempt shift " + s + (dice == 0 ? ", other key" : "")
                        + " dice=" + dice + " commit=" + commit,
                        w -> {
                            SiteView v = w.view(site);
                            int attempt = v == null ? 1 : s == 0 ? v.callerAttempt() + dice % Math.max(1, v.attempt() - v.callerAttempt() + 1)
                                    : s > 0 ? v.attempt() + 1 : v.callerAttempt() - 1;
                            DispatchCommand.Builder r = w.request(site, attempt);
                            if (dice == 0 && s == 0) {
                                r.setIdempotencyKey("other-key");
                            }
                            w.send(r.build());
                            commitIf(w, commit);
                        }));
    }

    private Arbitrary<Transformer<SiteMachineWorld>> resend() {
        Arbitrary<Boolean> higher = Arbitraries.frequency(Tuple.of(4, false), Tuple.of(1, true));
        return Combinators.combine(Arbitraries.integers().between(0, 1000), higher, thenCommit())
                .as((pick, up, commit) -> Transformer.mutate("resend request #" + pick + (up ? " at the next attempt" : ""), w -> {
                    w.resend(pick, up);
                    commitIf(w, commit);
                }));
    }

    private Arbitrary<Transformer<SiteMachineWorld>> cancel() {
        return Combinators.combine(site(), thenCommit()).as((site, commit) -> Transformer.mutate("cancel " + site, w -> {
            w.cancel(site);
            commitIf(w, commit);
        }));
    }

    private Arbitrary<Transformer<SiteMachineWorld>> report() {
        Arbitrary<WorkerEventKind> kind = Arbitraries.frequency(Tuple.of(4, WorkerEventKind.LEASED),
                Tuple.of(2, WorkerEventKind.HEARTBEAT), Tuple.of(5, WorkerEventKind.COMPLETED),
                Tuple.of(3, WorkerEventKind.FAILED), Tuple.of(1, WorkerEventKind.PARKED));
        Arbitrary<TokenChoice> token = Arbitraries.frequency(Tuple.of(12, TokenChoice.NEWEST),
                Tuple.of(3, TokenChoice.EARLIER), Tuple.of(1, TokenChoice.OTHER_SITE),
                Tuple.of(2, TokenChoice.FORGED), Tuple.of(1, TokenChoice.MISLABELLED));
        Arbitrary<String> worker = Arbitraries.of("w1", "w2", "w3", "attacker");
        Arbitrary<String> reason = Arbitraries.of("retryable: boom", "terminal: no", "plain failure", "");
        Arbitrary<Boolean> failsStep = Arbitraries.frequency(Tuple.of(30, false), Tuple.of(1, true));
        return Combinators.combine(site(), kind, token, Arbitraries.integers().between(0, 100), worker, reason, failsStep, thenCommit())
                .as((site, k, t, pick, who, why, fails, commit) -> Transformer.mutate(who + " reports " + k + " on " + site + " with " + t
                        + (fails ? " (deciding it throws)" : ""), w -> {
                    w.report(site, k, t, pick, who, k == WorkerEventKind.FAILED ? why : null, fails);
                    commitIf(w, commit);
                }));
    }

    private Arbitrary<Transformer<SiteMachineWorld>> advance() {
        Arbitrary<Integer> steps = Arbitraries.frequency(Tuple.of(10, 1), Tuple.of(8, 5), Tuple.of(4, 15),
                Tuple.of(1, 70));
        return steps.map(n -> Transformer.mutate("advance " + n * SiteMachineDriver.TIMER_RESOLUTION_MS + " ms", w -> w.advance(n)));
    }

    /** Workers register (serving queues and nodes), drain, or leave; registrations also go stale with time. */
    private Arbitrary<Transformer<SiteMachineWorld>> census() {
        Arbitrary<List<String>> queues = Arbitraries.of(List.of("payments"), List.of("payments", "mail"), List.of("mail"));
        Arbitrary<List<String>> nodes = Arbitraries.of(List.of(), List.of("n1"), List.of("n1", "n2"));
        return Combinators.combine(Arbitraries.of(SiteMachineWorld.WORKERS), queues, nodes, Arbitraries.integers().between(0, 5))
                .as((who, q, n, dice) -> Transformer.mutate(dice == 0 ? who + " leaves" : who + " registers " + q + " " + n
                        + (dice == 1 ? " draining" : ""), w -> {
                    if (dice == 0) {
                        w.withdraw(who);
                    } else {
                        w.register(who, q, n, dice == 1);
                    }
                }));
    }

    private Arbitrary<Transformer<SiteMachineWorld>> commit() {
        return Arbitraries.just(Transformer.mutate("commit", SiteMachineWorld::commit));
    }

    private Arbitrary<Transformer<SiteMachineWorld>> crash() {
        return Arbitraries.longs().map(seed -> Transformer.mutate("crash of the stream task (seed " + seed + ")", w -> w.crash(seed)));
    }

    private static Arbitrary<Timeouts> timeouts() {
        Arbitrary<Long> s2s = Arbitraries.of(1_000L, 300L).injectNull(0.75);
        Arbitrary<Long> s2c = Arbitraries.of(1_500L, 300L).injectNull(0.75);
        Arbitrary<Long> sctc = Arbitraries.just(4_000L).injectNull(0.8);
        Arbitrary<Long> heartbeat = Arbitraries.just(700L).injectNull(0.66);
        return Combinators.combine(s2s, s2c, sctc, heartbeat).as((a, b, c, d) -> a == null && b == null && c == null && d == null ? null
                : new Timeouts(a, b, c, d));
    }

    private static Arbitrary<RetryPolicy> policy() {
        return Arbitraries.of(new RetryPolicy(200L, 2.0, 800L, 2, List.of()), new RetryPolicy(100L, 1.0, 100L, 1, List.of())).injectNull(0.5);
    }

    private static void commitIf(SiteMachineWorld w, boolean commit) {
        if (commit) {
            w.commit();
        }
    }
}
