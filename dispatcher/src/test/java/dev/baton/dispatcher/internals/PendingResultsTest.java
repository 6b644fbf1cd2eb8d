package dev.baton.dispatcher.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.baton.dispatcher.DispatchException;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.PendingLimitExceededException;
import dev.baton.schemas.SiteKey;
import org.apache.kafka.common.errors.RetriableException;
import org.junit.jupiter.api.Test;

class PendingResultsTest {

    private final PendingResults pending = new PendingResults(3);

    private static ActivityOutcome outcome(String requestId) {
        return new ActivityOutcome(new SiteKey("ns", "wf", "1"), requestId, 1, true, new byte[] {42}, "application/octet-stream",
                null, "w-1", false);
    }

    /** The exception a failed future holds, unwrapped. */
    private static Throwable failureOf(CompletableFuture<ActivityOutcome> future) {
        assertThat(future).isCompletedExceptionally();
        return future.handle((o, e) -> e).join();
    }

    @Test
    void shouldHoldARegisteredFutureUntilItsOutcomeArrives() {
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        assertThat(future).isNotDone();
        assertThat(pending.size()).isEqualTo(1);
    }

    @Test
    void shouldCompleteTheFutureOfTheRequestIdWithItsOutcome() {
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");
        ActivityOutcome outcome = outcome("r-1");

        assertThat(pending.complete("r-1", outcome)).isTrue();

        assertThat(future).isCompletedWithValue(outcome);
        assertThat(pending.size()).isZero();
    }

    @Test
    void shouldLeaveOtherFuturesWaitingWhenOneCompletes() {
        pending.register("r-1");
        CompletableFuture<ActivityOutcome> other = pending.register("r-2");

        pending.complete("r-1", outcome("r-1"));

        assertThat(other).isNotDone();
        assertThat(pending.size()).isEqualTo(1);
    }

    @Test
    void shouldReportThatNoFutureWaitsForAnUnknownRequestId() {
        pending.register("r-1");

        assertThat(pending.complete("r-unknown", outcome("r-unknown"))).isFalse();
        assertThat(pending.size()).isEqualTo(1);
    }

    @Test
    void shouldReportASecondOutcomeForTheSameRequestAsUnmatchedAndKeepTheFirst() {
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");
        ActivityOutcome first = outcome("r-1");
        pending.complete("r-1", first);

        assertThat(pending.complete("r-1", outcome("r-1"))).isFalse();

        assertThat(future).isCompletedWithValue(first);
    }

    @Test
    void shouldForgetAFutureItsHolderCompletedSoALateOutcomeIsUnmatched() {
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");
        future.completeExceptionally(new TimeoutException());

        assertThat(pending.size()).isZero();
        assertThat(pending.complete("r-1", outcome("r-1"))).isFalse();
    }

    @Test
    void shouldForgetAFutureItsHolderCancelledSoItsLateOutcomeIsUnmatched() {
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        assertThat(future.cancel(false)).isTrue();
        assertThat(future.cancel(false)).as("a second cancel still reports the future cancelled").isTrue();

        assertThat(pending.size()).isZero();
        assertThat(pending.complete("r-1", outcome("r-1"))).isFalse();
    }

    @Test
    void shouldMatchTheClientsOwnRequestIdsOnlyByTheExactString() {
        RequestIds ids = new RequestIds();
        PendingResults own = new PendingResults(10, 0, Runnable::run, nanos -> { }, ids);
        String id = ids.next();
        CompletableFuture<ActivityOutcome> future = own.register(id);
        ActivityOutcome outcome = outcome(id);

        assertThat(own.complete(id.toUpperCase(), outcome)).as("the same UUID in capitals is another request id").isFalse();
        assertThat(own.complete(id, outcome)).isTrue();
        assertThat(future).isCompletedWithValue(outcome);
        assertThat(own.size()).isZero();
    }

    @Test
    void shouldFailEveryWaitingFutureWithTheExceptionMadeForItsOwnRequestId() {
        RequestIds ids = new RequestIds();
        PendingResults own = new PendingResults(10, 0, Runnable::run, nanos -> { }, ids);
        String id = ids.next();
        CompletableFuture<ActivityOutcome> future = own.register(id);

        own.failAll(requestId -> new DispatchException("closed", requestId));

        assertThat(failureOf(future)).isInstanceOf(DispatchException.class).extracting(e -> ((DispatchException) e).requestId())
                .isEqualTo(id);
    }

    @Test
    void shouldTellHowLongEachFutureWaitedOnceHoweverItCompletes() {
        List<Long> waited = new ArrayList<>();
        PendingResults timed = new PendingResults(10, 0, Runnable::run, waited::add, new RequestIds());
        timed.register("answered");
        timed.register("failed");
        CompletableFuture<ActivityOutcome> cancelled = timed.register("cancelled");
        CompletableFuture<ActivityOutcome> timedOut = timed.register("timed-out");
        timed.register("closed");

        timed.complete("answered", outcome("answered"));
        timed.complete("answered", outcome("answered"));
        timed.fail("failed", new DispatchException("failed", "failed"));
        cancelled.cancel(false);
        cancelled.cancel(false);
        timedOut.completeExceptionally(new TimeoutException());
        timedOut.complete(outcome("timed-out"));
        timed.close(id -> new DispatchException("closed", id));

        assertThat(waited).hasSize(5).allMatch(nanos -> nanos >= 0);
    }

    @Test
    void shouldFailAFutureWithATimeoutAfterTheTimeoutAndForgetIt() {
        PendingResults timed = new PendingResults(10, 20, Runnable::run, nanos -> { }, new RequestIds());
        CompletableFuture<ActivityOutcome> future = timed.register("r-1");

        assertThat(future).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(TimeoutException.class);
        assertThat(timed.size()).isZero();
        assertThat(timed.complete("r-1", outcome("r-1"))).isFalse();
    }

    @Test
    void shouldRefuseARegistrationBeyondTheLimitNamingItAndTheCount() {
        pending.register("r-1");
        pending.register("r-2");
        pending.register("r-3");

        assertThatThrownBy(() -> pending.register("r-4"))
                .isInstanceOf(PendingLimitExceededException.class)
                .isInstanceOf(RetriableException.class)
                .hasMessage("max.pending is 3 and 3 dispatches are waiting; retry when some resolve or raise max.pending");
        assertThat(pending.size()).isEqualTo(3);
    }

    @Test
    void shouldAcceptARegistrationAgainOnceAWaitingFutureResolves() {
        pending.register("r-1");
        pending.register("r-2");
        pending.register("r-3");
        pending.complete("r-2", outcome("r-2"));

        assertThat(pending.register("r-4")).isNotDone();
        assertThat(pending.size()).isEqualTo(3);
    }

    @Test
    void shouldFailTheFutureOfTheRequestIdWithTheCause() {
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");
        DispatchException cause = new DispatchException("could not send", "r-1");

        pending.fail("r-1", cause);

        assertThat(future).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class).withCause(cause);
        assertThat(pending.size()).isZero();
    }

    @Test
    void shouldFailEveryWaitingFutureWithTheExceptionMadeForItsRequestId() {
        List<CompletableFuture<ActivityOutcome>> futures = new ArrayList<>();
        for (String id : List.of("r-1", "r-2", "r-3")) {
            futures.add(pending.register(id));
        }

        int failed = pending.failAll(id -> new DispatchException("closed", id));

        assertThat(failed).isEqualTo(3);
        assertThat(futures).extracting(PendingResultsTest::failureOf).extracting(e -> ((DispatchException) e).requestId())
                .containsExactly("r-1", "r-2", "r-3");
        assertThat(pending.size()).isZero();
    }

    @Test
    void shouldNotCountFuturesThatAlreadyResolvedWhenFailingAll() {
        pending.register("r-1");
        CompletableFuture<ActivityOutcome> done = pending.register("r-2");
        ActivityOutcome outcome = outcome("r-2");
        pending.complete("r-2", outcome);

        assertThat(pending.failAll(id -> new DispatchException("closed", id))).isEqualTo(1);
        assertThat(done).isCompletedWithValue(outcome);
    }

    @Test
    void shouldFailEveryWaitingFutureWithTheExceptionMadeForItsRequestIdOnClose() {
        CompletableFuture<ActivityOutcome> first = pending.register("r-1");
        CompletableFuture<ActivityOutcome> second = pending.register("r-2");

        int failed = pending.close(id -> new DispatchException("listener stopped", id));

        assertThat(failed).isEqualTo(2);
        assertThat(List.of(first, second)).extracting(PendingResultsTest::failureOf)
                .extracting(e -> ((DispatchException) e).requestId()).containsExactly("r-1", "r-2");
        assertThat(pending.size()).isZero();
    }

    @Test
    void shouldRefuseARegistrationAfterCloseWithTheExceptionMadeForItsRequestId() {
        pending.close(id -> new DispatchException("listener stopped", id));

        assertThatThrownBy(() -> pending.register("r-1"))
                .isInstanceOf(DispatchException.class)
                .hasMessage("listener stopped")
                .extracting(e -> ((DispatchException) e).requestId()).isEqualTo("r-1");
        assertThat(pending.size()).isZero();
    }

    @Test
    void shouldKeepTheFirstCloseCauseWhenClosedAgain() {
        pending.close(id -> new DispatchException("listener stopped", id));

        assertThat(pending.close(id -> new DispatchException("client closed", id))).isZero();
        assertThatThrownBy(() -> pending.register("r-1")).hasMessage("listener stopped");
    }

    @Test
    void shouldLeaveNoFutureWaitingWhenRegistrationsRaceAClose() throws Exception {
        ExecutorService registrars = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 200; round++) { // the race is narrow: run it often
                PendingResults racing = new PendingResults(1_000);
                Queue<CompletableFuture<ActivityOutcome>> registered = new ConcurrentLinkedQueue<>();
                CountDownLatch started = new CountDownLatch(2);
                List<Future<?>> running = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    String prefix = round + "-" + t + "-";
                    running.add(registrars.submit(() -> registerUntilRefused(racing, prefix, registered, started)));
                }
                assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
                racing.close(id -> new DispatchException("closed", id));
                for (Future<?> r : running) {
                    r.get(5, TimeUnit.SECONDS);
                }

                assertThat(registered.stream().filter(f -> !f.isDone()).count()).as("futures left waiting in round %d", round).isZero();
                assertThat(racing.size()).isZero();
            }
        } finally {
            registrars.shutdownNow();
        }
    }

    private static Void registerUntilRefused(PendingResults racing, String prefix, Queue<CompletableFuture<ActivityOutcome>> registered,
                                             CountDownLatch started) {
        started.countDown();
        for (int i = 0; i < 500; i++) { // bounded: a registrar the close never reaches must not fill the heap
            try {
                registered.add(racing.register(prefix + i));
            } catch (DispatchException refused) {
                return null;
            }
        }
        return null;
    }
}
