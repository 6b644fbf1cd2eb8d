package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class DealtRowsTest {

    /** A row as added: its key (hash, bytes) and its slots. */
    private record Added(int hash, byte[] key, long[] slots) {
    }

    /**
     * Every row reads back as added, whatever the first chunk's guess, across whole row chunks and key chunks, with
     * keys from empty to longer than a key chunk, and slots written after later rows were added (a fold's writes).
     */
    @Property(tries = 200)
    void shouldReadEveryRowBackAsAdded(@ForAll @IntRange(min = 0, max = 9) int slots, @ForAll @IntRange(min = 0, max = 5_000) int expectedRows,
            @ForAll @IntRange(max = 3 * DealtRows.CHUNK_ROWS + 17) int rows, @ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        DealtRows b = new DealtRows(slots, expectedRows, random.nextInt(1, 60));
        List<Added> added = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            int length = random.nextInt(100) == 0 ? random.nextInt(DealtRows.BYTE_CHUNK - 8, 2 * DealtRows.BYTE_CHUNK) : random.nextInt(64);
            byte[] from = new byte[length + 7];
            random.nextBytes(from);
            int offset = random.nextInt(8);
            int hash = random.nextInt();
            int row = b.add(hash, from, offset, length);
            assertThat(row).isEqualTo(r);
            long[] values = new long[slots];
            for (int s = 0; s < slots; s++) {
                values[s] = random.nextLong();
                b.values(row)[b.valuesAt(row) + s] = values[s];
            }
            added.add(new Added(hash, Arrays.copyOfRange(from, offset, offset + length), values));
            if (r > 0 && slots > 0) { // a fold writes an earlier row's slots while later rows are added
                int earlier = random.nextInt(r);
                long v = random.nextLong();
                added.get(earlier).slots()[0] = v;
                b.values(earlier)[b.valuesAt(earlier)] = v;
            }
        }

        assertThat(b.rows()).isEqualTo(rows);
        long keyBytes = 0;
        for (int r = 0; r < rows; r++) {
            Added a = added.get(r);
            keyBytes += a.key().length;
            assertThat(b.hash(r)).as("hash of row %d", r).isEqualTo(a.hash());
            assertThat(b.keyLength(r)).as("key length of row %d", r).isEqualTo(a.key().length);
            assertThat(Arrays.copyOfRange(b.keyBytes(r), b.keyStart(r), b.keyStart(r) + b.keyLength(r))).as("key of row %d", r).isEqualTo(a.key());
            assertThat(Arrays.copyOfRange(b.values(r), b.valuesAt(r), b.valuesAt(r) + slots)).as("slots of row %d", r).isEqualTo(a.slots());
        }
        assertThat(b.keyBytes()).isEqualTo(keyBytes);
    }

    @Test
    void shouldAllocateNoMoreThanTheFirstChunkForAFewRowsWhateverTheGuess() {
        DealtRows b = new DealtRows(8, 1_000_000, 40);
        byte[] key = "site-1".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int row = b.add(StringIds.hash(key, key.length), key, 0, key.length);

        assertThat(b.values(row)).hasSize(DealtRows.CHUNK_ROWS * 8); // one chunk, not a million rows
        assertThat(b.keyBytes(row)).hasSizeLessThanOrEqualTo(DealtRows.BYTE_CHUNK);
    }
}
