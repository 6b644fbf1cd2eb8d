package dev.baton.cli.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.baton.events.DeadLetter;
import dev.baton.topics.BatonTopics;
import org.junit.jupiter.api.Test;

/** Which dead letters a replay puts back, found by an adversary: a forged letter must never become a task or an outcome. */
class DeadLetterReplayTest {

    private static final Map<String, Integer> PARTITIONS = Map.of(BatonTopics.DISPATCH, 6, BatonTopics.WORKER_EVENTS, 6,
            BatonTopics.tasks("adv"), 6, BatonTopics.RESULTS, 6);

    @Test
    void shouldReplayOnlyTheStreamsAppsInputs() {
        assertThat(actionFor(letter(BatonTopics.DISPATCH, "INVALID_DISPATCH: cannot decode"))).isEqualTo("replayed");
        assertThat(actionFor(letter(BatonTopics.WORKER_EVENTS, "cannot decode"))).isEqualTo("replayed");
        assertThat(actionFor(letter(BatonTopics.tasks("adv"), "forged"))).startsWith("skipped: baton.tasks.adv is not an input");
        assertThat(actionFor(letter(BatonTopics.RESULTS, "forged"))).startsWith("skipped: baton.results is not an input");
    }

    @Test
    void shouldNotPutARecordBackOnTheWrongPartition() {
        assertThat(actionFor(letter(BatonTopics.WORKER_EVENTS, "terminal: invalid: wrong partition: written to partition 2 of ...")))
                .startsWith("skipped: it was on the wrong partition");
    }

    private static String actionFor(DeadLetter d) {
        DeadLetterReplay replay = new DeadLetterReplay();
        replay.all = true;
        List<DeadLetterReplay.Decision> decisions = replay.decide(List.of(new DeadLetterScan.Entry(0, 7, d, null)), Map.of(), PARTITIONS);
        assertThat(decisions).hasSize(1);
        return decisions.get(0).action();
    }

    private static DeadLetter letter(String topic, String reason) {
        return DeadLetter.newBuilder().setSourceTopic(topic).setSourcePartition(1).setSourceOffset(3).setReason(reason).setAtMillis(0).build();
    }
}
