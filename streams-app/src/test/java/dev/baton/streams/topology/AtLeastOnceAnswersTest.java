package dev.baton.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.baton.events.ActivityTask;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.WorkerStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * At-least-once: a request read again after a crash whose restored state is ahead of it (the
 * changelog kept the row's newest write, the outputs were delivered, the input is read again from
 * the last commit) gets the answer it got before, not a second, different one. One test per case
 * the model check found ({@link SiteMachineProperties}, at-least-once).
 */
class AtLeastOnceAnswersTest {

    private final SiteMachineDriver driver = new SiteMachineDriver(true);
    private final List<Outcome> answers = new ArrayList<>();
    private int counter;

    @AfterEach
    void close() {
        driver.close();
    }

    @Test
    void aRefusalReadAgainAfterATakeoverIsTheSameRefusal() {
        send(request("s0", 1, "idem"));
        commit();
        DispatchCommand collision = request("s0", 1, "other-key");
        send(collision); // SiteCollision: attempt 1 is held with another key
        send(request("s0", 2, "other-key")); // takes the site over: its callers' attempt is now 2
        crashAheadDeliveringAll();
        commit();
        assertThat(answersTo(collision)).as("answers to the refused request").isNotEmpty()
                .allSatisfy(a -> assertThat(a.getReason()).startsWith("terminal: SiteCollision"));
    }

    @Test
    void aCallerOfARunTwoTakeoversEndedGetsItsSupersededAgain() {
        commit();
        DispatchCommand first = request("s0", 1, "idem");
        send(first);
        send(request("s0", 2, "idem")); // supersedes the first run
        send(request("s0", 3, "idem")); // supersedes the second: the row's superseded names only its caller
        crashAheadDeliveringAll();
        commit();
        assertThat(answersTo(first)).as("answers to the first caller").isNotEmpty()
                .allSatisfy(a -> assertThat(a.getReason()).startsWith("superseded: by attempt 2"));
    }

    @Test
    void aRequestAnsweredWithAResolvedRunsOutcomeGetsItAgainAfterANewRun() {
        send(request("s0", 1, "idem"));
        ActivityTask task = commit().tasks().get(0);
        driver.report(WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED).setSite(task.getSite()).setAttempt(1).setGeneration(1)
                .setToken(task.getToken()).setWorkerId("w1").setOutput(SiteMachineWorld.payload("done")).setAtMillis(driver.wallClock())
                .build(), false);
        commit();
        DispatchCommand late = request("s0", 1, "idem");
        send(late); // joins the resolved run: its outcome
        send(request("s0", 2, "idem")); // a new run replaces it
        crashAheadDeliveringAll();
        commit();
        assertThat(answersTo(late)).as("answers to the request that got the resolved run's outcome").isNotEmpty()
                .allSatisfy(a -> assertThat(a.getStatus()).isEqualTo(OutcomeStatus.COMPLETED));
    }

    @Test
    void aCancelReadAgainDoesNotCancelTheRunStartedAfterIt() {
        send(request("s0", 1, "idem"));
        commit();
        driver.send(DispatchCommand.newBuilder().setKind(DispatchKind.CANCEL).setSite(SiteMachineWorld.siteKey("s0").toRef())
                .setRequestId("cancel").setReplyKey("client").setAttempt(1).setRequestedAtMillis(driver.wallClock()).build());
        DispatchCommand after = request("s0", 2, "idem");
        send(after); // the site is resolved (cancelled): a new run
        crashAheadDeliveringAll();
        commit();
        assertThat(answersTo(after)).as("the run started after the cancel is not cancelled by the cancel read again").isEmpty();
    }

    @Test
    void aRequestDecidedAfterAnExpiryIsDecidedSoAgainWhenACrashLosesTheExpiry() {
        send(request("s0", 2, "idem"));
        ActivityTask task = commit().tasks().get(0);
        driver.report(WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED).setSite(task.getSite()).setAttempt(2).setGeneration(1)
                .setToken(task.getToken()).setWorkerId("w1").setOutput(SiteMachineWorld.payload("done")).setAtMillis(driver.wallClock())
                .build(), false);
        long expiresAt = driver.wallClock() + SiteMachineDriver.DEDUPE_WINDOW_MS;
        commit();
        while (driver.wallClock() + SiteMachineDriver.TIMER_RESOLUTION_MS < expiresAt) {
            answers.addAll(driver.advance().outcomes());
        }
        commit();
        answers.addAll(driver.advance().outcomes()); // the row expires, not committed yet
        DispatchCommand fresh = request("s0", 1, "idem");
        send(fresh); // no row: a new run, no answer yet
        answers.addAll(driver.crash(new Random() {
            @Override
            public boolean nextBoolean() {
                return true;
            }

            @Override
            public int nextInt(int bound) {
                return 0; // no write since the commit reached the changelog: the expired row is back
            }
        }).outcomes());
        commit();
        assertThat(answersTo(fresh)).as("the request that started a new run after the expiry, read again after a crash lost the "
                + "expiry").isEmpty();
    }

    /**
     * The model check's seed 65698017807173049 (shrunk): a schedule-to-start expiry reported
     * {@code saturated} (a worker was live), a crash delivered that outcome but lost the row's
     * resolution, and the expiry read again after the worker's registration went stale reported
     * {@code unserved}. The deadline record carries the census it was requested with.
     */
    @Test
    void anExpiryReadAgainNamesTheCauseItNamedBefore() {
        commit();
        registerGoingStaleIn(300);
        DispatchCommand waiting = DispatchCommand.newBuilder(request("s0", 1, "idem")).setTimeouts(new Timeouts(200L, null, null, null)).build();
        send(waiting);
        commit(); // the site is pending, its schedule-to-start deadline armed
        for (int i = 0; i < 2; i++) {
            answers.addAll(driver.advance().outcomes()); // the deadline fires while w1 is live: saturated, not committed
        }
        while (driver.wallClock() < startedAt + 400) {
            answers.addAll(driver.advance().outcomes()); // w1's registration goes stale
        }
        crashDeliveringAllRestoringTheCommit();
        commit();
        assertThat(answersTo(waiting)).as("answers to the request whose schedule-to-start passed").isNotEmpty()
                .allSatisfy(a -> assertThat(a.getReason()).startsWith("unavailable: saturated"));
    }

    /**
     * As above, but the crash also lost the start of the attempt (the dispatch was read after the last
     * commit): read again, the dispatch arms the schedule-to-start from its record's timestamp, as the
     * first time, so the deadline record already in the log still matches it and names the same cause.
     * Armed by the wall clock of the second reading, the first record was stale and a later one counted
     * the census again.
     */
    @Test
    void anExpiryOfAnAttemptStartedAfterTheCommitIsDecidedOnceWhenReadAgain() {
        commit();
        registerGoingStaleIn(300);
        DispatchCommand waiting = DispatchCommand.newBuilder(request("s0", 1, "idem")).setTimeouts(new Timeouts(200L, null, null, null)).build();
        send(waiting);
        for (int i = 0; i < 2; i++) {
            answers.addAll(driver.advance().outcomes());
        }
        while (driver.wallClock() < startedAt + 400) {
            answers.addAll(driver.advance().outcomes());
        }
        crashDeliveringAllRestoringTheCommit();
        commit();
        for (int i = 0; i < 4; i++) {
            answers.addAll(driver.advance().outcomes());
        }
        commit();
        assertThat(answersTo(waiting)).as("answers to the request whose schedule-to-start passed").isNotEmpty()
                .allSatisfy(a -> assertThat(a.getReason()).startsWith("unavailable: saturated"));
    }

    /**
     * A deadline armed by a worker's report: the lease arms the start-to-close timeout, which fails the
     * only attempt and answers the caller; the worker's completion, read after it, is late. A crash
     * delivers that answer but restores the row from before the lease. Read again, later by the wall
     * clock, the lease arms the timeout anew: the deadline record already in the log must still fire
     * it, or the completion read next would be a second, different outcome.
     */
    @Test
    void aTimeoutArmedByAWorkersReportIsDecidedOnceWhenReadAgain() {
        DispatchCommand run = DispatchCommand.newBuilder(request("s0", 1, "idem")).setTimeouts(new Timeouts(null, 300L, null, null))
                .setRetryPolicy(new dev.baton.events.RetryPolicy(100L, 2.0, 1_000L, 1, List.of())).build();
        send(run);
        ActivityTask task = commit().tasks().get(0);
        driver.report(report(task, WorkerEventKind.LEASED).build(), false);
        for (int i = 0; i < 5; i++) {
            answers.addAll(driver.advance().outcomes()); // the timeout fires and fails the run, not committed yet
        }
        driver.report(report(task, WorkerEventKind.COMPLETED).setOutput(SiteMachineWorld.payload("done")).build(), false);
        crashDeliveringAllRestoringTheCommit();
        commit();
        for (int i = 0; i < 10; i++) {
            answers.addAll(driver.advance().outcomes());
        }
        commit();
        // The completion read after the timeout is relayed as unmatched (a late result, never lost): not the caller's answer.
        assertThat(answersTo(run)).as("answers to the run whose only attempt timed out").filteredOn(a -> !a.getUnmatched()).isNotEmpty()
                .allSatisfy(a -> assertThat(a.getStatus()).isEqualTo(OutcomeStatus.FAILED));
    }

    /**
     * A worker forges deadline records for a site it does not hold, as the app writes them, naming
     * every input that could have armed its start-to-close timeout, with a made-up proof and with none,
     * and a due time long past: the timeout fires only when it is due.
     */
    @Test
    void aForgedDeadlineRecordNamingTheArmingInputFiresNothingEarly() {
        DispatchCommand run = DispatchCommand.newBuilder(request("s0", 1, "idem")).setTimeouts(new Timeouts(null, 1_500L, null, null))
                .setRetryPolicy(new dev.baton.events.RetryPolicy(100L, 2.0, 1_000L, 1, List.of())).build();
        send(run);
        ActivityTask task = commit().tasks().get(0);
        driver.report(report(task, WorkerEventKind.LEASED).build(), false); // within the default heartbeat window throughout
        commit();
        byte[] site = SiteMachineWorld.siteKey("s0").toBytes();
        for (long stamp = 0; stamp < 64; stamp++) {
            for (byte[] proof : new byte[][] {new byte[16], null}) {
                org.apache.kafka.common.header.internals.RecordHeaders headers = new org.apache.kafka.common.header.internals.RecordHeaders();
                headers.add("baton.deadline", java.nio.ByteBuffer.allocate(1 + Long.BYTES + site.length)
                        .put((byte) dev.baton.streams.state.DeadlineKind.START_TO_CLOSE.ordinal()).putLong(0L).put(site).array());
                if (proof != null) {
                    headers.add("baton.deadline.armed-by", java.nio.ByteBuffer.allocate(Long.BYTES + proof.length).putLong(stamp).put(proof).array());
                }
                driver.forge(0, headers);
            }
        }
        for (int i = 0; i < 10; i++) {
            answers.addAll(driver.advance().outcomes());
        }
        commit();
        assertThat(answersTo(run)).as("answers before the start-to-close timeout is due").isEmpty();
        for (int i = 0; i < 8; i++) {
            answers.addAll(driver.advance().outcomes());
        }
        commit();
        assertThat(answersTo(run)).as("answers once it is due").isNotEmpty()
                .allSatisfy(a -> assertThat(a.getReason()).startsWith("retryable: start-to-close timeout"));
    }

    /**
     * h/adv22s finding 3: a request refused for its size, read again after a crash by an app restarted with a higher
     * {@code max.payload.bytes}, is valid now; it must get its refusal again, not run (its caller was answered). The row the
     * refusal wrote (a refusal-only row: the site had none) remembers it.
     */
    @Test
    void aRequestRefusedForItsSizeIsRefusedAgainWhenReadByAnAppWithAHigherLimit() {
        commit();
        DispatchCommand big = DispatchCommand.newBuilder(request("s0", 1, "idem")).setInput(SiteMachineWorld.payload("x".repeat(2_000))).build();
        send(big);
        driver.restartWithMaxPayloadBytes(4_096);
        SiteMachineDriver.Visible delivered = driver.crash(new Random() {
            @Override
            public boolean nextBoolean() {
                return true;
            }

            @Override
            public int nextInt(int bound) {
                return bound - 1; // the refusal's row write reached the changelog
            }
        });
        answers.addAll(delivered.outcomes());
        SiteMachineDriver.Visible after = commit();
        assertThat(delivered.tasks()).isEmpty();
        assertThat(after.tasks()).as("tasks published for the refused request read again").isEmpty();
        assertThat(answersTo(big)).as("answers to the refused request").hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(a -> assertThat(a.getReason()).startsWith("terminal: invalid dispatch: input must be <= max.payload.bytes 1024"));
    }

    /** A refusal-only row is no run: a new request starts the site's first run, a worker's report for it is unmatched, and it expires. */
    @Test
    void aSiteThatOnlyRefusedRunsANewRequestAndForgetsTheRefusalAfterTheDedupeWindow() {
        commit();
        DispatchCommand big = DispatchCommand.newBuilder(request("s0", 1, "idem")).setInput(SiteMachineWorld.payload("x".repeat(2_000))).build();
        send(big);
        commit();
        assertThat(driver.row("s0")).contains("REFUSED");
        driver.report(WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED).setSite(SiteMachineWorld.siteKey("s0").toRef()).setAttempt(1)
                .setGeneration(1).setToken("A".repeat(22)).setWorkerId("w1").setOutput(SiteMachineWorld.payload("x")).setAtMillis(driver.wallClock())
                .build(), false);
        SiteMachineDriver.Visible unknown = commit();
        assertThat(unknown.outcomes()).as("answers to a report for a site that never ran").isEmpty();
        assertThat(unknown.deadLetters()).singleElement().satisfies(d -> assertThat(d.getReason()).contains("unknown site"));
        DispatchCommand fresh = request("s0", 1, "idem");
        send(fresh);
        ActivityTask task = commit().tasks().get(0);
        driver.report(report(task, WorkerEventKind.COMPLETED).setOutput(SiteMachineWorld.payload("done")).build(), false);
        commit();
        assertThat(answersTo(fresh)).singleElement().satisfies(o -> assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED));
        send(big); // read again while the run's row remembers the refusal: the same refusal
        commit();
        assertThat(answersTo(big)).hasSize(2).allSatisfy(a -> assertThat(a.getReason()).startsWith("terminal: invalid dispatch"));
        long expiresAt = driver.wallClock() + SiteMachineDriver.DEDUPE_WINDOW_MS;
        while (driver.wallClock() <= expiresAt + SiteMachineDriver.COMMIT_INTERVAL_MS) {
            answers.addAll(driver.advance().outcomes());
        }
        commit();
        assertThat(driver.row("s0")).isEqualTo("no row");
    }

    private WorkerEvent.Builder report(ActivityTask task, WorkerEventKind kind) {
        return WorkerEvent.newBuilder().setKind(kind).setSite(task.getSite()).setAttempt(task.getAttempt()).setGeneration(task.getGeneration())
                .setToken(task.getToken()).setWorkerId("w1").setAtMillis(driver.wallClock());
    }

    private long startedAt;

    /** Registers w1 on the request's queue with a registration that goes stale {@code inMillis} from now. */
    private void registerGoingStaleIn(long inMillis) {
        startedAt = driver.wallClock();
        long lastSeen = startedAt + inMillis - SiteMachineDriver.WORKER_STALE_MS;
        driver.register("w1", WorkerStatus.newBuilder().setWorkerId("w1").setQueues(List.of("payments")).setNodeLabels(List.of()).setCapacity(4)
                .setInFlight(0).setDraining(false).setStartedAtMillis(lastSeen).setLastSeenMillis(lastSeen).build());
    }

    /** Every output since the last commit was delivered, and no row write since it reached the changelog. */
    private void crashDeliveringAllRestoringTheCommit() {
        answers.addAll(driver.crash(new Random() {
            @Override
            public boolean nextBoolean() {
                return true;
            }

            @Override
            public int nextInt(int bound) {
                return 0;
            }
        }).outcomes());
    }

    private DispatchCommand request(String site, int attempt, String key) {
        return DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(SiteMachineWorld.siteKey(site).toRef())
                .setRequestId("r" + counter++).setReplyKey("client").setAttempt(attempt).setRunId("run").setIdempotencyKey(key)
                .setQueue("payments").setActivityType("charge").setInput(SiteMachineWorld.payload("in")).setRequestedAtMillis(driver.wallClock())
                .build();
    }

    private void send(DispatchCommand cmd) {
        driver.send(cmd);
    }

    private SiteMachineDriver.Visible commit() {
        SiteMachineDriver.Visible v = driver.commit();
        answers.addAll(v.outcomes());
        return v;
    }

    /** Every output since the last commit was delivered, every row restored to its newest write: the state is ahead of the input. */
    private void crashAheadDeliveringAll() {
        answers.addAll(driver.crash(new Random() {
            @Override
            public boolean nextBoolean() {
                return true;
            }

            @Override
            public int nextInt(int bound) {
                return bound - 1;
            }
        }).outcomes());
    }

    private List<Outcome> answersTo(DispatchCommand cmd) {
        return answers.stream().filter(o -> o.getRequestId().equals(cmd.getRequestId())).toList();
    }
}
