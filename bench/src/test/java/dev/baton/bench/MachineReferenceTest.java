package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MachineReferenceTest {

    @Test
    void shouldTimeBothPiecesOfReferenceWork() {
        MachineReference.Figures figures = MachineReference.measure();

        // Sorting a million longs takes milliseconds on any machine; a system call, under a millisecond.
        assertThat(figures.sortMillis()).isGreaterThan(1).isLessThan(10_000);
        assertThat(figures.writeMicros()).isGreaterThan(0).isLessThan(1_000);
    }

    @Test
    void shouldDescribeTheFiguresAndSayWhenTheWriteCannotBeTimed() {
        assertThat(new MachineReference.Figures(61.4, 0.274).describe())
                .isEqualTo("sort of 1M longs 61 ms, 1-byte write to /dev/null 0.27 us");
        assertThat(new MachineReference.Figures(61.4, Double.NaN).describe())
                .isEqualTo("sort of 1M longs 61 ms, 1-byte write to /dev/null n/a (no /dev/null)");
    }
}
