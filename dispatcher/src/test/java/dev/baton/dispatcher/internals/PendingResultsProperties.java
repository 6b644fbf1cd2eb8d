package dev.baton.dispatcher.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.baton.dispatcher.DispatchException;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.PendingLimitExceededException;
import dev.baton.schemas.SiteKey;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link PendingResults} against a plain map under any sequence of registrations, outcomes, failures and
 * futures their holders resolve (a timeout, a cancel). Replay a failure from the seed jqwik prints.
 */
class PendingResultsProperties {

    /** One step; {@code id} picks among a few request ids so steps often hit the same one. */
    record Step(String kind, int id) {
    }

    @Property(tries = 500)
    void shouldCompleteEachFutureAtMostOnceAndNeverHoldMoreThanTheLimit(@ForAll("steps") List<Step> steps,
                                                                        @ForAll @IntRange(min = 1, max = 4) int max) {
        PendingResults pending = new PendingResults(max);
        Map<String, CompletableFuture<ActivityOutcome>> waiting = new HashMap<>();
        for (Step step : steps) {
            String id = "r-" + step.id();
            switch (step.kind()) {
                case "register" -> {
                    if (waiting.containsKey(id)) {
                        continue; // request ids are unique per dispatch
                    }
                    if (waiting.size() >= max) {
                        assertThatThrownBy(() -> pending.register(id)).isInstanceOf(PendingLimitExceededException.class);
                    } else {
                        waiting.put(id, pending.register(id));
                    }
                }
                case "complete" -> {
                    ActivityOutcome outcome = new ActivityOutcome(new SiteKey("ns", "wf", "1"), id, 1, true, new byte[0], null, null, null, false);
                    CompletableFuture<ActivityOutcome> future = waiting.remove(id);
                    assertThat(pending.complete(id, outcome)).as("complete %s", id).isEqualTo(future != null);
                    if (future != null) {
                        assertThat(future).isCompletedWithValue(outcome);
                    }
                }
                case "fail" -> {
                    CompletableFuture<ActivityOutcome> future = waiting.remove(id);
                    pending.fail(id, new DispatchException("failed", id));
                    if (future != null) {
                        assertThat(future).isCompletedExceptionally();
                    }
                }
                default -> { // the holder resolves it: orTimeout, cancel
                    CompletableFuture<ActivityOutcome> future = waiting.remove(id);
                    if (future != null) {
                        future.cancel(false);
                    }
                }
            }
            assertThat(pending.size()).isEqualTo(waiting.size()).isLessThanOrEqualTo(max);
        }
        assertThat(pending.failAll(id -> new DispatchException("closed", id))).isEqualTo(waiting.size());
        assertThat(waiting.values()).allMatch(CompletableFuture::isCompletedExceptionally);
        assertThat(pending.size()).isZero();
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<String> kinds = Arbitraries.of("register", "register", "complete", "fail", "resolve");
        return Combinators.combine(kinds, Arbitraries.integers().between(0, 5)).as(Step::new).list().ofMaxSize(40);
    }
}
