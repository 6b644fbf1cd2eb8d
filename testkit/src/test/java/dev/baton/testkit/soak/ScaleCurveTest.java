package dev.baton.testkit.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class ScaleCurveTest {

    @Test
    void shouldPrintEverySampleAndThePeaks() {
        ScaleCurve curve = new ScaleCurve("sites", "state dir");
        curve.add(new ScaleCurve.Sample(10.0, 1000, 1000, 100L << 20, 300L << 20, 5L << 20));
        curve.add(new ScaleCurve.Sample(20.0, 2000, 1500, 150L << 20, 320L << 20, 4L << 20));
        curve.add(new ScaleCurve.Sample(30.0, 2000, 2000, -1, -1, 6L << 20));

        List<String> lines = curve.lines("384m");

        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).contains("t (s)", "dispatched", "sites", "heap after GC", "process RSS", "state dir");
        assertThat(lines.get(1)).contains("10.0", "1000", "100.0 MiB", "300.0 MiB", "5.0 MiB");
        assertThat(lines.get(3)).contains("n/a", "6.0 MiB");
        assertThat(lines.get(4)).isEqualTo("peak heap after GC 150.0 MiB of -Xmx384m; peak RSS 320.0 MiB; peak state dir 6.0 MiB");
        assertThat(curve.peakHeap()).isEqualTo(150L << 20);
    }

    @Test
    void shouldLeaveOutTheDirectoryWhenThereIsNone() {
        ScaleCurve curve = new ScaleCurve("pending futures", null);
        curve.add(new ScaleCurve.Sample(5.0, 300, 250, 60L << 20, 200L << 20, -1));

        assertThat(curve.lines("2048m")).containsExactly(
                "   t (s)  dispatched  pending futures   heap after GC     process RSS",
                "     5.0         300              250        60.0 MiB       200.0 MiB",
                "peak heap after GC 60.0 MiB of -Xmx2048m; peak RSS 200.0 MiB");
    }

    @Test
    void shouldSayWhenNothingWasMeasured() {
        assertThat(new ScaleCurve("n", "dir").lines("1g")).containsExactly(
                new ScaleCurve("n", "dir").lines("1g").get(0), "peak heap after GC n/a of -Xmx1g; peak RSS n/a; peak dir n/a");
    }
}
