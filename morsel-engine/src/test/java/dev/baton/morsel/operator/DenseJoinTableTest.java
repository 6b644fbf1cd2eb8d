package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A join table for dense keys: made only where dense enough, and answers like a hash table. */
class DenseJoinTableTest {

    @Test
    void shouldRefuseARangeMoreThanFourTimesTheRows() {
        assertThat(DenseJoinTable.forRange(1, 400, 100)).isNotNull();
        assertThat(DenseJoinTable.forRange(1, 401, 100)).isNull();
        assertThat(DenseJoinTable.forRange(Long.MIN_VALUE + 1, Long.MAX_VALUE, 100)).isNull();
        assertThat(DenseJoinTable.forRange(Long.MAX_VALUE, Long.MIN_VALUE, 0)).as("no rows").isNull();
    }

    @Test
    void shouldAnswerMissingOutsideTheRangeAndForAbsentKeys() {
        DenseJoinTable t = DenseJoinTable.forRange(-5, 10, 8);
        assertThat(t.put(-5, 0)).isTrue();
        assertThat(t.put(10, -1)).isTrue();
        assertThat(t.put(10, 7)).as("a repeated key").isFalse();
        assertThat(t.get(-5, 99)).isZero();
        assertThat(t.get(10, 99)).as("the payload put last").isEqualTo(7);
        assertThat(t.get(3, 99)).isEqualTo(99);
        assertThat(t.get(-6, 99)).isEqualTo(99);
        assertThat(t.get(11, 99)).isEqualTo(99);
        assertThat(t.get(Long.MAX_VALUE, 99)).isEqualTo(99);
    }

    @Test
    void shouldKeepKeysAcrossChunksAndInAPartialLastChunk() {
        int chunk = 1 << DenseJoinTable.CHUNK_BITS;
        long max = 3L * chunk + 4;
        DenseJoinTable t = DenseJoinTable.forRange(0, max, max + 1);
        for (long k = 0; k <= max; k += 7) {
            t.put(k, k * 3);
        }
        t.put(max, -5);
        for (long k = 0; k < max; k++) {
            assertThat(t.get(k, 99)).as("key " + k).isEqualTo(k % 7 == 0 ? k * 3 : 99);
        }
        assertThat(t.get(max, 99)).as("the last chunk's last slot").isEqualTo(-5);
        assertThat(t.get(max + 1, 99)).isEqualTo(99);
    }
}
