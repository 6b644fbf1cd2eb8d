package dev.baton.cli.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

class ReplayLedgerTest {

    @Test
    void shouldEncodeConsecutiveOffsetsAsRangesAndReadThemBack() {
        ReplayLedger ledger = ReplayLedger.empty().with(List.of(3L, 4L, 5L, 9L, 11L, 12L));
        assertThat(ledger.encode()).isEqualTo("replayed:3-5,9,11-12");
        ReplayLedger read = ReplayLedger.decode(ledger.encode());
        assertThat(LongStream.rangeClosed(0, 13).filter(read::contains).boxed()).containsExactly(3L, 4L, 5L, 9L, 11L, 12L);
        assertThat(read.next()).isEqualTo(13);
    }

    @Test
    void shouldReadNoMetadataAsEmpty() {
        assertThat(ReplayLedger.decode(null).isEmpty()).isTrue();
        assertThat(ReplayLedger.decode("").isEmpty()).isTrue();
        assertThat(ReplayLedger.decode("replayed:").isEmpty()).isTrue();
    }

    @Test
    void shouldRefuseMetadataItDidNotWrite() {
        assertThatThrownBy(() -> ReplayLedger.decode("something else")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must start with 'replayed:'").hasMessageContaining("something else");
    }

    @Test
    void shouldRefuseALedgerTooLongForOffsetMetadata() {
        List<Long> everyOther = LongStream.range(0, 2_000).map(o -> o * 2).boxed().toList();
        assertThatThrownBy(() -> ReplayLedger.empty().with(everyOther).encode()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("more than " + ReplayLedger.MAX_ENCODED);
    }
}
