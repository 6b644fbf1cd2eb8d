package dev.baton.testkit.activity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.worker.AsyncCompletion;
import dev.baton.worker.CompletionRef;
import dev.baton.worker.TypedActivityHandler;
import org.junit.jupiter.api.Test;

/** A handler unit-tested without Kafka: the context hands it a checkpoint and records what it reports. */
class TestActivityContextTest {

    record Progress(int row) {
    }

    /** Counts rows to {@code target}, resuming after the last checkpoint and heartbeating each row. */
    private static final TypedActivityHandler<Integer, String> COUNT = (ctx, target) -> {
        int from = ctx.lastHeartbeatDetails(Progress.class).map(Progress::row).orElse(0);
        for (int row = from + 1; row <= target; row++) {
            ctx.heartbeat(new Progress(row));
        }
        return "counted " + (from + 1) + ".." + target;
    };

    @Test
    void shouldResumeAHandlerFromTheCheckpointTheTestSets() throws Exception {
        TestActivityContext ctx = TestActivityContext.builder().generation(2).lastHeartbeatDetails(new Progress(7)).build();

        assertThat(COUNT.handle(ctx, 10)).isEqualTo("counted 8..10");
        assertThat(ctx.heartbeats(Progress.class)).containsExactly(new Progress(8), new Progress(9), new Progress(10));
    }

    @Test
    void shouldStartFromNothingWithoutACheckpoint() throws Exception {
        TestActivityContext ctx = TestActivityContext.builder().build();

        assertThat(COUNT.handle(ctx, 2)).isEqualTo("counted 1..2");
        assertThat(ctx.lastHeartbeatDetails()).isEmpty();
    }

    @Test
    void shouldRecordWhatAnAsyncCompletionReportsUnderItsToken() throws Exception {
        TestActivityContext ctx = TestActivityContext.builder().attempt(3).build();
        TypedActivityHandler<String, Object> later = (c, input) -> {
            AsyncCompletion handle = c.completeLater();
            new Thread(() -> handle.complete("approved " + input)).start();
            return null;
        };

        later.handle(ctx, "loan-1");

        assertThat(ctx.completesLater()).isTrue();
        org.awaitility.Awaitility.await().untilAsserted(() -> assertThat(ctx.asyncOutcome()).hasValueSatisfying(r -> {
            assertThat(r.kind()).isEqualTo("completed");
            assertThat(new String(r.payload().data(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("\"approved loan-1\"");
        }));
        assertThat(CompletionRef.parse(ctx.token()).attempt()).isEqualTo(3);
    }

    @Test
    void shouldRefuseAnAttemptBelowOneNamingIt() {
        assertThatThrownBy(() -> TestActivityContext.builder().attempt(0)).hasMessage("attempt must be >= 1, was 0");
    }
}
