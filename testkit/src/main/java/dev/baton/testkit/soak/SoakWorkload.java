package dev.baton.testkit.soak;

import static dev.baton.testkit.soak.Expectation.completed;
import static dev.baton.testkit.soak.Expectation.completedAtAttempt;
import static dev.baton.testkit.soak.Expectation.completedWith;
import static dev.baton.testkit.soak.Expectation.failed;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.ActivityRequest.RetryOptions;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.events.DispatchCommand;
import dev.baton.schemas.Reasons;
import dev.baton.testkit.WorkerRoster;
import dev.baton.testkit.WorkerSpec;

/**
 * Sends each activity of the soak's stream as its scenario says ({@link SoakPlan#scenario}) and
 * registers every request with the outcomes its role allows ({@link SoakLedger}). Delayed follow-ups
 * (a joined caller, a takeover, a cancel) go out on a timer thread, so the paced stream is never held
 * up; one client's producer keeps them in order on the site's partition, so a follow-up always
 * reaches the streams app after the request it follows (though not always before the run ends: each
 * expectation allows for that).
 */
public final class SoakWorkload implements AutoCloseable {

    private static final RetryOptions RETRY = new RetryOptions(Duration.ofMillis(100), 2.0, Duration.ofSeconds(2), 5, List.of());
    private static final Duration HEARTBEAT = Duration.ofSeconds(2);
    /** A joined caller of a flaky run, sent while its policy retries run: it names attempt 1, the run is at attempt 2 or in backoff. */
    private static final Duration JOIN_DURING_RETRIES = Duration.ofMillis(250);
    private static final Duration JOIN_AFTER = Duration.ofMillis(20);
    private static final String RESENT_RUNS_MS = "600";
    private static final Duration RESEND_AFTER = Duration.ofSeconds(1);
    /** Attempt 1 runs 1 s; attempt 2 arrives while it runs. Attempt 2 runs the same 1 s. */
    private static final Duration TAKEOVER_AFTER = Duration.ofMillis(300);
    private static final String TAKEN_OVER_RUNS_MS = "1000";
    private static final Duration CANCEL_AFTER = Duration.ofMillis(500);
    private static final String CANCELLED_RUNS_MS = "1500";
    private static final Duration UNSERVED_SCHEDULE_TO_START = Duration.ofSeconds(1);

    private final DispatchClient client;
    private final RawDispatcher raw;
    private final SoakLedger ledger;
    private final WorkerRoster roster;
    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "baton-soak-follow-ups");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger cancelsNotSent = new AtomicInteger();

    /** @param client a client whose unmatched handler is {@code ledger}'s; raw sends are addressed to its client id */
    public SoakWorkload(DispatchClient client, String bootstrap, SoakLedger ledger, WorkerRoster roster) {
        this.client = client;
        this.raw = new RawDispatcher(bootstrap, client.clientId(), Clock.systemUTC());
        this.ledger = ledger;
        this.roster = roster;
    }

    /** Sends activity {@code i}'s first request now and schedules its follow-ups. */
    public void send(int i) {
        String echo = "soak-" + i;
        switch (SoakPlan.scenario(i)) {
            case ECHO -> dispatch(i, request(i, SoakPlan.QUEUE, "echo", echo).build(), completedWith("echo", echo).orTransportExhausted());
            case FLAKY -> dispatch(i, request(i, SoakPlan.QUEUE, "flaky", echo).build(), completedAtAttempt("flaky", 3).orTransportExhausted());
            case TERMINAL -> dispatch(i, request(i, SoakPlan.QUEUE, "terminal", echo).build(), failed("terminal", Reasons.TERMINAL).orTransportExhausted());
            case LONG -> dispatch(i, request(i, SoakPlan.QUEUE, "long", "1500").build(), completed("long").orTransportExhausted());
            case JOINED_ECHO -> joined(i, request(i, SoakPlan.QUEUE, "echo", echo).build(), Duration.ZERO,
                    role -> completedWith(role, echo).orTransportExhausted(), "joined echo");
            case JOINED_FLAKY -> joined(i, request(i, SoakPlan.QUEUE, "flaky", echo).build(), JOIN_DURING_RETRIES,
                    role -> completedAtAttempt(role, 3).orTransportExhausted(), "joined flaky");
            case RESENT -> resent(i);
            case TAKEOVER -> takeover(i);
            case CANCEL -> cancel(i);
            case PINNED_SERVED -> dispatch(i, request(i, SoakPlan.QUEUE, "echo", echo).node(SoakPlan.SERVED_NODE).build(),
                    completedWith("pinned to a served node", echo).and("on a worker labelled " + SoakPlan.SERVED_NODE,
                            o -> labelled(o.workerId(), SoakPlan.SERVED_NODE)).orTransportExhausted());
            case PINNED_UNSERVED -> dispatch(i, request(i, SoakPlan.QUEUE, "echo", echo).node(SoakPlan.IDLE_NODE)
                    .scheduleToStart(UNSERVED_SCHEDULE_TO_START).build(), failed("pinned to an unserved node", Reasons.UNAVAILABLE
                    + " unserved: no live worker with node '" + SoakPlan.IDLE_NODE + "' on queue '" + SoakPlan.QUEUE + "'"));
            case PINNED_UNKNOWN -> dispatch(i, request(i, SoakPlan.QUEUE, "echo", echo).node(SoakPlan.UNKNOWN_NODE).build(),
                    failed("pinned to an undeclared node", Reasons.UNAVAILABLE + " unknown node '" + SoakPlan.UNKNOWN_NODE + "' on queue '"
                            + SoakPlan.QUEUE + "'"));
            case SECOND_QUEUE -> dispatch(i, request(i, SoakPlan.SECOND_QUEUE, "echo", echo).build(),
                    completedWith("second queue", echo).and("on a worker serving " + SoakPlan.SECOND_QUEUE,
                            o -> serves(o.workerId(), SoakPlan.SECOND_QUEUE)).orTransportExhausted());
            default -> throw new IllegalStateException("no workload for scenario " + SoakPlan.scenario(i));
        }
    }

    /** Cancels that could not be sent (their callers then get the run's own outcome, which their expectation allows). */
    public int cancelsNotSent() {
        return cancelsNotSent.get();
    }

    /** Two callers of one run: the second has the same site, attempt and idempotency key and its own request id. */
    private void joined(int i, ActivityRequest req, Duration after, Function<String, Expectation> expected, String role) {
        SentRequest first = dispatch(i, req, expected.apply(role + ": first"));
        SentRequest second = after.isZero() ? dispatch(i, req, expected.apply(role + ": joined"))
                : dispatchLater(i, req, expected.apply(role + ": joined"), after);
        ledger.sameOutcome(first, second);
    }

    /**
     * One request, one request id, sent twice: one outcome. Odd activities send the second copy right
     * behind the first (it meets the live run and joins it); even ones 1 s later, after the 600 ms
     * run has been answered, so the copy gets the same answer again (docs/decisions.md, "Joined
     * callers"): the ledger counts identical answers once.
     */
    private void resent(int i) {
        DispatchCommand cmd = raw.command(request(i, SoakPlan.QUEUE, "long", RESENT_RUNS_MS).build(), UUID.randomUUID().toString());
        SentRequest r = ledger.expectRaw(i, completed("resent (same request id twice)").orTransportExhausted(), cmd.getRequestId());
        raw.send(cmd).whenComplete((v, e) -> failIfNotSent(r, e));
        if (i % 2 == 1) {
            raw.send(cmd).whenComplete((v, e) -> failIfNotSent(r, e));
        } else {
            later.schedule(() -> raw.send(cmd).whenComplete((v, e) -> failIfNotSent(r, e)), RESEND_AFTER.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Attempt 2 while attempt 1 runs: attempt 1's callers get superseded: (or its own outcome, had it finished first). */
    private void takeover(int i) {
        ActivityRequest first = request(i, SoakPlan.QUEUE, "long", TAKEN_OVER_RUNS_MS).build();
        Function<String, Expectation> overtaken = role -> failed(role, Reasons.SUPERSEDED + " by attempt 2")
                .and("at attempt 1", o -> o.attempt() == 1).or(completedAtAttempt(role, 1)).orTransportExhausted();
        SentRequest one = dispatch(i, first, overtaken.apply("takeover: attempt 1"));
        if (SoakPlan.withJoinedCaller(i)) {
            ledger.sameOutcome(one, dispatchLater(i, first, overtaken.apply("takeover: attempt 1, joined"), JOIN_AFTER));
        }
        dispatchLater(i, first.withAttempt(2), completedAtAttempt("takeover: attempt 2", 2).orTransportExhausted(), TAKEOVER_AFTER);
    }

    /** A cancel while the activity runs: its callers get cancelled: (or its own outcome, had it finished first). */
    private void cancel(int i) {
        ActivityRequest req = request(i, SoakPlan.QUEUE, "long", CANCELLED_RUNS_MS).build();
        Function<String, Expectation> cancelled = role -> failed(role, Reasons.CANCELLED).or(completed(role))
                .orTransportExhausted();
        SentRequest first = dispatch(i, req, cancelled.apply("cancel: first"));
        if (SoakPlan.withJoinedCaller(i)) {
            ledger.sameOutcome(first, dispatchLater(i, req, cancelled.apply("cancel: joined"), JOIN_AFTER));
        }
        later.schedule(() -> {
            try {
                client.cancel(req.site()).whenComplete((v, e) -> {
                    if (e != null) {
                        cancelsNotSent.incrementAndGet();
                    }
                });
            } catch (RuntimeException e) {
                cancelsNotSent.incrementAndGet();
            }
        }, CANCEL_AFTER.toMillis(), TimeUnit.MILLISECONDS);
    }

    private SentRequest dispatch(int i, ActivityRequest req, Expectation expected) {
        SentRequest r = ledger.expect(i, expected);
        try {
            ledger.track(r, client.dispatch(req));
        } catch (RuntimeException e) {
            r.failed(e);
        }
        return r;
    }

    /** Registered now, so the soak waits for it; sent after {@code after}. */
    private SentRequest dispatchLater(int i, ActivityRequest req, Expectation expected, Duration after) {
        SentRequest r = ledger.expect(i, expected);
        later.schedule(() -> {
            try {
                ledger.track(r, client.dispatch(req));
            } catch (RuntimeException e) {
                r.failed(e);
            }
        }, after.toMillis(), TimeUnit.MILLISECONDS);
        return r;
    }

    private static void failIfNotSent(SentRequest r, Throwable e) {
        if (e != null) {
            r.failed(e);
        }
    }

    private boolean labelled(String workerId, String node) {
        WorkerSpec spec = roster.specOf(workerId);
        return spec != null && spec.nodeLabels().contains(node);
    }

    private boolean serves(String workerId, String queue) {
        WorkerSpec spec = roster.specOf(workerId);
        return spec != null && spec.queues().contains(queue);
    }

    private static ActivityRequest.Builder request(int i, String queue, String type, String input) {
        return ActivityRequest.builder().site("soak", "wf-" + i, "step").queue(queue).activityType(type)
                .input(input.getBytes(StandardCharsets.UTF_8), "text/plain").retry(RETRY).heartbeat(HEARTBEAT);
    }

    /** Waits for the follow-ups already scheduled to go out, then closes the raw sender. */
    @Override
    public void close() {
        later.shutdown();
        try {
            later.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        raw.close();
    }
}
