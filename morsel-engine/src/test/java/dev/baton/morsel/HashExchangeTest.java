package dev.baton.morsel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import dev.baton.morsel.exchange.HashExchange;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class HashExchangeTest {

    @Test
    void shouldSpillASkewedKeySoPartitionsDifferByAtMostOne() {
        long[] keys = new long[1000];
        Arrays.fill(keys, 7L);
        List<List<Integer>> parts = HashExchange.hashPartition(keys, 8, 1);
        IntSummary sizes = new IntSummary(parts.stream().mapToInt(List::size).toArray());
        assertThat(sizes.max - sizes.min).isLessThanOrEqualTo(1);
        assertThat(sizes.sum).isEqualTo(1000);
    }

    @Test
    void shouldReplicateEveryItemToEveryPartitionOnBroadcast() {
        List<List<Integer>> parts = HashExchange.broadcast(5, 3);
        assertThat(parts).hasSize(3).allSatisfy(p -> assertThat(p).containsExactly(0, 1, 2, 3, 4));
    }

    @Property(tries = 300)
    void shouldKeepEveryItemExactlyOnce(@ForAll long[] keys, @ForAll @IntRange(min = 1, max = 16) int partitions,
                                        @ForAll @IntRange(min = 1, max = 64) int threshold) {
        List<List<Integer>> parts = HashExchange.hashPartition(keys, partitions, threshold);
        assertThat(parts.stream().flatMap(List::stream).sorted().toList())
                .isEqualTo(IntStream.range(0, keys.length).boxed().toList());
        for (long k : keys) {
            assertThat(HashExchange.partitionOf(k, partitions)).isBetween(0, partitions - 1);
        }
    }

    private record IntSummary(int min, int max, int sum) {
        IntSummary(int[] v) {
            this(IntStream.of(v).min().orElse(0), IntStream.of(v).max().orElse(0), IntStream.of(v).sum());
        }
    }
}
