package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * Adversarial checks of {@link DealtRows}'s cached add path against a plain reference (lists of byte[] and long[]):
 * every row reads back as added, and a write through {@link DealtRows#lastValues} right after {@code add} lands in that
 * row's slots and nowhere else.
 */
class Adv29DealtRowsTest {

    private static final int C = DealtRows.BYTE_CHUNK;

    /** Key lengths that straddle the lines: the first chunk's sizes, a whole key chunk (entry = length + 4), beyond it. */
    private static final int[] EDGE_LENGTHS = {0, 1, 3, 4, 5, 36, 40, 252, 256, 1020, 4092, 4096, C / 2 - 4, C / 2, C - 8, C - 5, C - 4, C - 3, C,
            C + 1, 2 * C, 3 * C + 7};

    @Test
    void randomSequencesReadBackAsAdded() {
        long seed0 = Long.getLong("adv29.seed", 0xDEA17L);
        System.out.println("Adv29 dealt rows seed " + seed0);
        SplittableRandom random = new SplittableRandom(seed0);
        int runs = 0;
        while (runs < 200) { // a count, not a time: the same runs on every machine
            long seed = random.nextLong();
            oneRun(seed);
            runs++;
        }
        System.out.println("Adv29 dealt rows runs " + runs);
    }

    /** Every edge key length, in every position relative to a first chunk of every size guess. */
    @Test
    void edgeLengthsAfterEveryFillLevel() {
        int[] guesses = {Integer.MIN_VALUE, -1, 0, 1, 5, 40, 64, C, Integer.MAX_VALUE};
        for (int bytesEach : guesses) {
            for (int expected : new int[] {-5, 0, 16, 17, 100, 1024, 1025, 100_000}) {
                for (int len : EDGE_LENGTHS) {
                    for (int fill : new int[] {0, 1, 7, 60, 255}) {
                        Model m = new Model(new DealtRows(2, expected, bytesEach), 2);
                        SplittableRandom r = new SplittableRandom(len * 31L + fill);
                        for (int i = 0; i < fill; i++) {
                            m.add(r, 1 + (i % 13), 0);
                        }
                        m.add(r, len, 3);
                        m.add(r, 0, 0);
                        m.add(r, len, 1);
                        m.add(r, 5, 0);
                        m.check("bytesEach " + bytesEach + " expected " + expected + " len " + len + " fill " + fill);
                    }
                }
            }
        }
    }

    /** Rows exactly at and around the row-chunk lines, every slot count from 0, with writes after every add. */
    @Test
    void rowsAroundChunkLines() {
        for (int slots = 0; slots <= 5; slots++) {
            for (int expected : new int[] {1, 16, 17, 31, 33, 1000, 1023, 1024, 1025, 5000}) {
                Model m = new Model(new DealtRows(slots, expected, 3), slots);
                SplittableRandom r = new SplittableRandom(slots * 1000L + expected);
                for (int i = 0; i < 3 * DealtRows.CHUNK_ROWS + 3; i++) {
                    m.add(r, r.nextInt(6), 0);
                    int rows = i + 1;
                    if ((rows & (rows - 1)) == 0 || rows % DealtRows.CHUNK_ROWS <= 1 || rows % DealtRows.CHUNK_ROWS == DealtRows.CHUNK_ROWS - 1) {
                        m.check("slots " + slots + " expected " + expected + " after " + rows);
                    }
                }
                m.check("slots " + slots + " expected " + expected);
            }
        }
    }

    private static void oneRun(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int slots = r.nextInt(5) == 0 ? 0 : 1 + r.nextInt(8);
        int expected = switch (r.nextInt(5)) {
            case 0 -> r.nextInt(-3, 20);
            case 1 -> 1000 + r.nextInt(50);
            case 2 -> r.nextInt(100_000);
            default -> r.nextInt(300);
        };
        int bytesEach = switch (r.nextInt(4)) {
            case 0 -> r.nextInt(-5, 5);
            case 1 -> r.nextInt(1 << 20);
            default -> r.nextInt(80);
        };
        DealtRows d = r.nextInt(6) == 0 ? new DealtRows(slots) : new DealtRows(slots, expected, bytesEach);
        Model m = new Model(d, slots);
        int rows = switch (r.nextInt(4)) {
            case 0 -> r.nextInt(40);
            case 1 -> DealtRows.CHUNK_ROWS + r.nextInt(-3, 4);
            default -> r.nextInt(3 * DealtRows.CHUNK_ROWS + 50);
        };
        long bigBudget = 600_000; // keep a run's key bytes bounded
        for (int i = 0; i < rows; i++) {
            int len;
            int pick = r.nextInt(100);
            if (pick < 2 && bigBudget > 0) {
                len = EDGE_LENGTHS[r.nextInt(EDGE_LENGTHS.length)];
                bigBudget -= len;
            } else if (pick < 10) {
                len = 0;
            } else if (pick < 15) {
                len = 200 + r.nextInt(3000);
            } else {
                len = r.nextInt(60);
            }
            m.add(r, len, r.nextInt(4));
            if (r.nextInt(200) == 0) {
                m.check("seed " + seed + " at " + i);
            }
        }
        m.check("seed " + seed);
    }

    /** A DealtRows beside the plain reference. */
    private static final class Model {
        final DealtRows d;
        final int slots;
        final List<Integer> hashes = new ArrayList<>();
        final List<byte[]> keys = new ArrayList<>();
        final List<long[]> values = new ArrayList<>();
        long keyBytes;

        Model(DealtRows d, int slots) {
            this.d = d;
            this.slots = slots;
        }

        /** Adds a key of {@code len} bytes taken from inside a larger array at some offset; writes its slots through lastValues. */
        void add(SplittableRandom r, int len, int lead) {
            byte[] key = new byte[len];
            for (int i = 0; i < len; i++) {
                key[i] = (byte) r.nextInt(256);
            }
            byte[] from = new byte[lead + len + r.nextInt(3)];
            Arrays.fill(from, (byte) 0x5a);
            System.arraycopy(key, 0, from, lead, len);
            int hash = r.nextInt();
            int row = d.add(hash, from, lead, len);
            assertThat(row).isEqualTo(keys.size());
            Arrays.fill(from, (byte) 0x11); // the caller's array reused: the row must hold its own copy
            long[] slotValues = new long[slots];
            long[] a = d.lastValues();
            int at = d.valuesAt(row);
            assertThat(a).isSameAs(d.values(row));
            for (int s = 0; s < slots; s++) {
                assertThat(a[at + s]).as("a new row's slot is zero").isZero();
                long v = r.nextLong();
                slotValues[s] = v;
                a[at + s] = v;
            }
            hashes.add(hash);
            keys.add(key);
            values.add(slotValues);
            keyBytes += len;
            // a later write to an earlier row (a fold's) through values(row): must stay in that row
            if (!keys.isEmpty() && slots > 0 && r.nextInt(8) == 0) {
                int earlier = r.nextInt(keys.size());
                int s = r.nextInt(slots);
                long v = r.nextLong();
                d.values(earlier)[d.valuesAt(earlier) + s] = v;
                values.get(earlier)[s] = v;
            }
        }

        void check(String label) {
            assertThat(d.rows()).as(label).isEqualTo(keys.size());
            assertThat(d.keyBytes()).as(label).isEqualTo(keyBytes);
            for (int row = 0; row < keys.size(); row++) {
                assertThat(d.hash(row)).as(label + " hash of " + row).isEqualTo(hashes.get(row));
                byte[] key = keys.get(row);
                assertThat(d.keyLength(row)).as(label + " length of " + row).isEqualTo(key.length);
                byte[] kb = d.keyBytes(row);
                int start = d.keyStart(row);
                assertThat(Arrays.equals(kb, start, start + key.length, key, 0, key.length)).as(label + " key of " + row).isTrue();
                long[] v = d.values(row);
                int at = d.valuesAt(row);
                assertThat(Arrays.copyOfRange(v, at, at + slots)).as(label + " slots of " + row).containsExactly(values.get(row));
            }
        }
    }
}
