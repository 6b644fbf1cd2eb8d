package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.baton.morsel.morsel.Morsel;
import org.junit.jupiter.api.Test;

class TopicMorselsTest {

    @Test
    void shouldSizeAMorselToHalfOfL2InRecords() {
        assertThat(TopicMorsels.offsetsPerMorsel(1 << 20, 128)).isEqualTo(4096);
        assertThat(TopicMorsels.offsetsPerMorsel(1 << 20, 1 << 20)).as("never below the floor").isEqualTo(TopicMorsels.MIN_OFFSETS);
        assertThatThrownBy(() -> TopicMorsels.offsetsPerMorsel(1 << 20, 0)).hasMessageContaining("recordBytes must be > 0, was 0.0");
    }

    @Test
    void shouldCoverEveryOffsetOnceAndGiveEachWorkerWholePartitionsInOrder() {
        List<OffsetRange> partitions = List.of(new OffsetRange("t", 0, 0, 10_000), new OffsetRange("t", 1, 5, 3_000),
                new OffsetRange("t", 2, 0, 7_000), new OffsetRange("t", 3, 0, 0));

        TopicMorsels.Plan plan = TopicMorsels.plan(partitions, 1_000, 2);

        Map<Integer, Long> covered = new TreeMap<>();
        Map<Integer, Integer> workerOfPartition = new TreeMap<>();
        List<List<OffsetRange>> byWorker = List.of(new ArrayList<>(), new ArrayList<>());
        for (Morsel m : plan.morsels()) {
            OffsetRange r = plan.ranges().get(m.startPage());
            assertThat(r.offsets()).isLessThanOrEqualTo(1_000);
            covered.merge(r.partition(), r.offsets(), Long::sum);
            assertThat(workerOfPartition.computeIfAbsent(r.partition(), p -> m.preferredNumaNode())).isEqualTo(m.preferredNumaNode());
            byWorker.get(m.preferredNumaNode()).add(r);
        }
        assertThat(covered).isEqualTo(Map.of(0, 10_000L, 1, 2_995L, 2, 7_000L));
        assertThat(workerOfPartition.get(0)).as("the largest partition alone on one worker").isNotEqualTo(workerOfPartition.get(2));
        for (List<OffsetRange> mine : byWorker) {
            for (int i = 1; i < mine.size(); i++) {
                OffsetRange prev = mine.get(i - 1);
                OffsetRange cur = mine.get(i);
                if (prev.partition() == cur.partition()) {
                    assertThat(cur.from()).as("a worker's morsels of a partition are consecutive").isEqualTo(prev.to());
                }
            }
        }
    }

    @Test
    void shouldCutASinglePartitionSoEveryWorkerStreamsAPiece() {
        TopicMorsels.Plan plan = TopicMorsels.plan(List.of(new OffsetRange("t", 0, 0, 9_000)), 1_000, 3);

        assertThat(plan.morsels().stream().map(Morsel::preferredNumaNode).distinct()).containsExactlyInAnyOrder(0, 1, 2);
        assertThat(plan.ranges().stream().mapToLong(OffsetRange::offsets).sum()).isEqualTo(9_000);
    }
}
