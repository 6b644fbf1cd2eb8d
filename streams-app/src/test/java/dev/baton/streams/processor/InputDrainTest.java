package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InputDrainTest {

    private final InputDrain drain = new InputDrain();

    @Test
    void shouldNeverBeDrainedOnAThreadWhoseConsumerReportsNothing() {
        drain.processed();

        assertThat(drain.drained()).isFalse();
    }

    @Test
    void shouldBeDrainedAtTheLastRecordOfAShortPoll() {
        drain.polled(3, 1000);
        drain.processed();
        drain.processed();
        assertThat(drain.drained()).isFalse();

        drain.processed();

        assertThat(drain.drained()).isTrue();
    }

    @Test
    void shouldLeaveAFullPollToTheInterval() {
        drain.polled(1000, 1000);
        for (int i = 0; i < 1000; i++) {
            drain.processed();
        }

        assertThat(drain.drained()).isFalse();
    }

    @Test
    void shouldCountRecordsLeftFromAnEarlierPoll() {
        drain.polled(5, 1000);
        drain.processed();
        drain.polled(2, 1000); // four of the first poll are still buffered
        for (int i = 0; i < 5; i++) {
            drain.processed();
        }
        assertThat(drain.drained()).isFalse();

        drain.processed();

        assertThat(drain.drained()).isTrue();
    }

    @Test
    void shouldForgetRecordsStreamsDroppedOnceAPollFindsNothingToDo() {
        drain.polled(4, 1000);
        drain.processed(); // the other three belonged to a partition revoked before they were processed
        drain.polled(0, 1000);
        assertThat(drain.drained()).isFalse();

        drain.polled(0, 1000); // nothing processed since the last poll, nothing came: nothing is buffered

        assertThat(drain.drained()).isTrue();
    }

    @Test
    void shouldAskForADrainedCommitNoMoreOftenThanTheMinimumGap() {
        drain.polled(1, 1000);
        drain.processed();
        assertThat(drain.commitDue(1_000)).isTrue();
        assertThat(drain.commitDue(1_000)).as("asked once").isFalse();

        drain.polled(1, 1000);
        drain.processed();
        assertThat(drain.commitDue(1_000 + InputDrain.MIN_GAP_MS - 1)).as("within the gap").isFalse();
        assertThat(drain.commitDue(1_000 + InputDrain.MIN_GAP_MS)).as("the punctuator, once the gap passed").isTrue();
    }

    @Test
    void shouldCountTheGapFromTheEndOfTheLastCommit() {
        drain.polled(1, 1000);
        drain.processed();
        assertThat(drain.commitDue(1_000)).isTrue();
        drain.commitEnded(1_006); // the asked-for commit took 6 ms

        drain.polled(1, 1000);
        drain.processed();
        assertThat(drain.commitDue(1_000 + InputDrain.MIN_GAP_MS)).as("ten ms after the ask, four after the commit").isFalse();
        assertThat(drain.commitDue(1_006 + InputDrain.MIN_GAP_MS)).as("ten ms after the commit ended").isTrue();
    }

    @Test
    void shouldWaitTheGapAfterACommitStreamsMadeByItsOwnTimer() {
        drain.commitEnded(2_000);
        drain.polled(1, 1000);
        drain.processed();

        assertThat(drain.commitDue(2_000 + InputDrain.MIN_GAP_MS - 1)).isFalse();
        assertThat(drain.commitDue(2_000 + InputDrain.MIN_GAP_MS)).isTrue();
    }

    @Test
    void shouldPollNoLongerThanADrainedCommitsGapHasLeft() {
        drain.commitEnded(3_000);
        assertThat(drain.pollTimeoutMs(5, 3_001)).as("nothing processed since the commit").isEqualTo(5);

        drain.polled(2, 1000);
        drain.processed();
        assertThat(drain.pollTimeoutMs(5, 3_002)).as("a record still buffered: Streams polls without waiting anyway").isEqualTo(5);
        drain.processed();

        assertThat(drain.pollTimeoutMs(5, 3_002)).as("the gap ends at 3,010").isEqualTo(5);
        assertThat(drain.pollTimeoutMs(5, 3_007)).isEqualTo(3);
        assertThat(drain.pollTimeoutMs(5, 3_012)).as("overdue: the punctuator asks right after").isZero();
        assertThat(drain.commitDue(3_012)).isTrue();
        assertThat(drain.pollTimeoutMs(5, 3_012)).as("asked: Streams commits before the next poll, or finds nothing to").isEqualTo(5);

        drain.commitEnded(3_013);
        assertThat(drain.pollTimeoutMs(5, 3_014)).as("committed: wait for input again").isEqualTo(5);
    }

    @Test
    void shouldWaitForInputAgainOnceATransactionIsAborted() {
        drain.polled(1, 1000);
        drain.processed();
        assertThat(drain.pollTimeoutMs(5, Long.MAX_VALUE / 2)).isZero();

        drain.aborted(); // the record is read again after the abort; nothing is left to commit

        assertThat(drain.pollTimeoutMs(5, Long.MAX_VALUE / 2)).isEqualTo(5);
    }
}
