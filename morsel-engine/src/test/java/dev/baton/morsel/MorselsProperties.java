package dev.baton.morsel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.morsel.Morsels;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MorselsProperties {

    @Property(tries = 500)
    void shouldCoverThePageRangeWithoutGapsOrOverlaps(@ForAll @IntRange(min = 0, max = 10_000) int start,
                                                     @ForAll @IntRange(min = 0, max = 10_000) int length,
                                                     @ForAll @IntRange(min = 1, max = 300) int pagesPerMorsel,
                                                     @ForAll @IntRange(min = 1, max = 4) int numaNodes) {
        List<Morsel> morsels = Morsels.partition(start, start + length, pagesPerMorsel, numaNodes);
        int next = start;
        for (int i = 0; i < morsels.size(); i++) {
            Morsel m = morsels.get(i);
            assertThat(m.startPage()).isEqualTo(next);
            assertThat(m.pages()).isBetween(1, pagesPerMorsel);
            assertThat(m.preferredNumaNode()).isEqualTo(i % numaNodes);
            next = m.endPage();
        }
        assertThat(next).isEqualTo(start + length);
    }

    @Property(tries = 300)
    void shouldGiveEachWorkerSeveralMorselsWhereThePagesAllow(@ForAll @IntRange(min = 0, max = 5_000) int pages,
                                                             @ForAll @IntRange(min = 1, max = 300) int pagesPerMorsel,
                                                             @ForAll @IntRange(min = 1, max = 8) int workers) {
        List<Morsel> morsels = Morsels.forWorkers(pages, pagesPerMorsel, workers, 1);
        assertThat(morsels.stream().mapToInt(Morsel::pages).sum()).isEqualTo(pages);
        assertThat(morsels).allSatisfy(m -> assertThat(m.pages()).isBetween(1, pagesPerMorsel));
        if (pages >= Morsels.MIN_MORSELS_PER_WORKER * workers) {
            assertThat(morsels.size()).isGreaterThanOrEqualTo(Math.min(Morsels.MIN_MORSELS_PER_WORKER * workers,
                    (pages + pagesPerMorsel - 1) / pagesPerMorsel));
        }
    }

    @Test
    void shouldSplitLineitemAtScaleFactorOneEvenlyForTwoWorkers() {
        assertThat(Morsels.partition(0, 733, 67, 1)).as("half of L2 alone").hasSize(11);
        assertThat(Morsels.forWorkers(733, 67, 2, 1)).hasSize(34);
        assertThat(Morsels.forWorkers(733, 67, 1, 1)).hasSize(17);
    }

    @Test
    void shouldAutoTuneTo128PagesForA1MiBL2And4KiBPages() {
        assertThat(Morsels.autoTunedPagesPerMorsel(1 << 20, 4096)).isEqualTo(128);
        assertThat(Morsels.autoTunedPagesPerMorsel(1 << 20, 1 << 20)).as("never below one page").isEqualTo(1);
    }

    @Test
    void shouldNameTheBadArgument() {
        assertThatThrownBy(() -> Morsels.partition(0, 10, 0, 1)).hasMessage("pagesPerMorsel must be >= 1, was 0");
        assertThatThrownBy(() -> Morsels.partition(0, 10, 1, 0)).hasMessage("numaNodes must be >= 1, was 0");
        assertThatThrownBy(() -> Morsels.partition(5, 4, 1, 1)).hasMessageContaining("0 <= start <= end, was [5, 4)");
        assertThatThrownBy(() -> Morsels.autoTunedPagesPerMorsel(0, 4096)).hasMessage("l2Bytes must be >= 1, was 0");
    }

    @Test
    void shouldReadL2FromSysfsAndFallBackTo1MiB(@TempDir Path dir) throws Exception {
        assertThat(MorselsAccess.l2Bytes(dir.resolve("missing"))).isEqualTo(Morsels.DEFAULT_L2_BYTES);
        Files.createDirectories(dir.resolve("index0"));
        Files.writeString(dir.resolve("index0/level"), "1\n");
        Files.writeString(dir.resolve("index0/size"), "48K\n");
        Files.createDirectories(dir.resolve("index2"));
        Files.writeString(dir.resolve("index2/level"), "2\n");
        Files.writeString(dir.resolve("index2/size"), "2048K\n");
        assertThat(MorselsAccess.l2Bytes(dir)).isEqualTo(2048L * 1024);
    }
}
