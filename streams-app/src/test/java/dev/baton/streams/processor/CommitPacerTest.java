package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.Test;

class CommitPacerTest {

    private final CommitPacer pacer = new CommitPacer();

    @Test
    void shouldAskForACommitWhenTheLastTaskOfTheLastCommitResolves() {
        pacer.released(site("a"));
        pacer.released(site("b"));
        pacer.commitStarting(0);
        pacer.released(site("c")); // carried by the next commit, not waited for

        assertThat(pacer.resolved(site("a"))).isFalse();
        assertThat(pacer.resolved(site("b"))).isTrue();
    }

    @Test
    void shouldNotCountOutcomesOfTasksAnEarlierCommitCarried() {
        pacer.released(site("old"));
        pacer.commitStarting(0);
        pacer.released(site("new"));
        pacer.commitStarting(5);

        assertThat(pacer.resolved(site("old"))).isFalse();
        assertThat(pacer.resolved(site("new"))).isTrue();
    }

    @Test
    void shouldCountOnlyTheFirstFlushOfACommit() {
        pacer.released(site("a"));
        pacer.released(site("b"));
        pacer.commitStarting(0);
        pacer.commitStarting(0); // the commit's second task flushing: nothing was written in between

        assertThat(pacer.resolved(site("a"))).isFalse();
        assertThat(pacer.resolved(site("b"))).isTrue();
    }

    @Test
    void shouldStopWaitingForATaskReleasedAgainBeforeItsOutcome() {
        pacer.released(site("lost"));
        pacer.released(site("b"));
        pacer.commitStarting(0);
        pacer.released(site("lost")); // re-published (transport loss): its outcome comes with a later commit

        assertThat(pacer.resolved(site("b"))).isTrue();
    }

    @Test
    void shouldFallBackOnlyWhenSomethingWaitsAndTheLastCommitStartedLongEnoughAgo() {
        assertThat(pacer.fallbackDue(100, 20)).as("nothing written").isFalse();
        pacer.wrote();
        pacer.commitStarting(100);
        assertThat(pacer.fallbackDue(130, 20)).as("written before the commit, nothing since").isFalse();

        pacer.wrote();
        assertThat(pacer.fallbackDue(119, 20)).isFalse();
        assertThat(pacer.fallbackDue(120, 20)).isTrue();
    }

    private static SiteKey site(String activity) {
        return new SiteKey("ns", "wf", activity);
    }
}
