package dev.baton.testkit.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PacerTest {

    @Test
    void shouldSpaceSendsByTheRateFromTheStartWhateverHappenedBefore() {
        Pacer pacer = new Pacer(1_000L, 2000);

        assertThat(pacer.dueNanos(0)).isEqualTo(1_000L);
        assertThat(pacer.dueNanos(1)).isEqualTo(1_000L + 500_000);
        assertThat(pacer.dueNanos(2_000_000)).isEqualTo(1_000L + 1_000_000_000_000L); // a million-activity run: no overflow, no drift
    }

    @Test
    void shouldRefuseARateThatIsNotPositive() {
        assertThatThrownBy(() -> new Pacer(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Pacer(0, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }
}
