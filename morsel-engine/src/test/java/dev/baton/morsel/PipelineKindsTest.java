package dev.baton.morsel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.morsel.exchange.HashExchange;
import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;
import org.junit.jupiter.api.Test;

/** The seed's scheduling rule for probe pipelines, and what each kind may name. */
class PipelineKindsTest {

    private final List<Morsel> morsels = Morsels.partition(0, 200, 1, 1);

    @Test
    void shouldDealProbeMorselsByHashExchangeOfTheirIdsWithHotPartitionSpill() {
        try (MorselScheduler s = new MorselScheduler(3, 1, MorselMetrics.noop())) {
            long[] ids = morsels.stream().mapToLong(Morsel::id).toArray();
            int[] expected = HashExchange.assign(ids, 3, HashExchange.DEFAULT_HOT_THRESHOLD);

            assertThat(s.dealing(PipelineKind.PROBE, morsels)).containsExactly(expected);
            int[] perWorker = new int[3];
            for (int w : expected) {
                perWorker[w]++;
            }
            for (int n : perWorker) {
                assertThat(n).isGreaterThanOrEqualTo(HashExchange.DEFAULT_HOT_THRESHOLD); // spill keeps every worker fed
            }
        }
    }

    @Test
    void shouldDealScanMorselsRoundRobin() {
        try (MorselScheduler s = new MorselScheduler(3, 1, MorselMetrics.noop())) {
            int[] dealt = s.dealing(PipelineKind.SCAN, morsels);
            for (int i = 0; i < dealt.length; i++) {
                assertThat(dealt[i]).isEqualTo(i % 3);
            }
        }
    }

    @Test
    void shouldRunAProbeAfterItsBuildAndEveryProbeMorselOnce() {
        List<String> order = new ArrayList<>();
        AtomicInteger probed = new AtomicInteger();
        try (MorselScheduler s = new MorselScheduler(2, 1, MorselMetrics.noop())) {
            s.runWaves(List.of(
                    Pipeline.of("build", PipelineKind.BUILD, morsels.subList(0, 10), 0, (w, m, ctx) -> {
                        synchronized (order) {
                            order.add("build");
                        }
                    }),
                    Pipeline.probe("probe", morsels, 0, List.of("build"), (w, m, ctx) -> {
                        probed.incrementAndGet();
                        synchronized (order) {
                            order.add("probe");
                        }
                    })));
        }
        assertThat(order.subList(0, 10)).containsOnly("build");
        assertThat(probed.get()).isEqualTo(morsels.size());
    }

    @Test
    void shouldRefuseAProbeWithoutBuildsAndABuildListOnAnotherKind() {
        assertThatThrownBy(() -> Pipeline.probe("p", morsels, 0, List.of(), (w, m, c) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("probe pipeline 'p' must name the build");
        assertThatThrownBy(() -> new Pipeline("s", PipelineKind.SCAN, morsels, 0, List.of("b"), (w, m, c) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only a probe pipeline waits for builds; 's' is SCAN");
    }
}
