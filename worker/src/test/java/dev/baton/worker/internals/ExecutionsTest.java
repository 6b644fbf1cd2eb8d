package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.events.ActivityTask;
import dev.baton.events.SiteRef;
import dev.baton.schemas.CompletionToken;
import org.junit.jupiter.api.Test;

/** A stop request must prove which generation it means: the fingerprint of that generation's token. */
class ExecutionsTest {

    private static final SiteRef SITE = new SiteRef("ns", "wf", "1");

    private final Executions executions = new Executions();
    private final Execution running = held(SITE, 2, 3, CompletionToken.random());

    @Test
    void shouldStopTheExecutionWhoseTokenHasTheFingerprint() {
        assertThat(executions.stop(SITE, 2, 3, CompletionToken.fingerprint(running.token()))).isTrue();

        assertThat(running.phase()).isEqualTo(Execution.Phase.STOPPED);
    }

    @Test
    void shouldNotStopOnTheRightSiteAttemptAndGenerationWithAnotherTokensFingerprint() {
        assertThat(executions.stop(SITE, 2, 3, CompletionToken.random().fingerprint())).isFalse();

        assertThat(running.phase()).isEqualTo(Execution.Phase.RUNNING);
    }

    @Test
    void shouldNotStopWithoutAFingerprint() {
        assertThat(executions.stop(SITE, 2, 3, null)).isFalse();

        assertThat(running.phase()).isEqualTo(Execution.Phase.RUNNING);
    }

    @Test
    void shouldNotStopWhenTheTokenIsSentInsteadOfItsFingerprint() {
        assertThat(executions.stop(SITE, 2, 3, running.token())).isFalse();

        assertThat(running.phase()).isEqualTo(Execution.Phase.RUNNING);
    }

    @Test
    void shouldStopOnlyTheExecutionTheFingerprintNames() {
        Execution other = held(new SiteRef("ns", "wf", "2"), 1, 1, CompletionToken.random());

        assertThat(executions.stop(other.task().getSite(), 1, 1, CompletionToken.fingerprint(other.token()))).isTrue();

        assertThat(other.phase()).isEqualTo(Execution.Phase.STOPPED);
        assertThat(running.phase()).isEqualTo(Execution.Phase.RUNNING);
    }

    @Test
    void shouldKnowAStopWasSeenForATokenItNeverHeld() {
        CompletionToken elsewhere = CompletionToken.random();
        executions.stop(new SiteRef("ns", "wf", "9"), 1, 1, elsewhere.fingerprint());

        assertThat(executions.stopSeen(elsewhere.value())).isTrue();
        assertThat(executions.stopSeen(running.token())).isFalse();
    }

    @Test
    void shouldSeeNoStopBeforeAnyStopRequest() {
        assertThat(executions.stopSeen(running.token())).isFalse();
    }

    private Execution held(SiteRef site, int attempt, int generation, CompletionToken token) {
        ActivityTask task = ActivityTask.newBuilder().setSite(site).setAttempt(attempt).setGeneration(generation).setToken(token.value())
                .setIdempotencyKey("idem").setQueue("q").setActivityType("t").setScheduledAtMillis(0).build();
        Execution e = new Execution(task, "w", 0);
        executions.add(e);
        return e;
    }
}
