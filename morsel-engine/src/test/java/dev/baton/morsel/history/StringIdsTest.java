package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;

class StringIdsTest {

    private final StringIds ids = new StringIds();

    @Test
    void shouldGiveOneIdPerStringWhicheverFormItComesIn() {
        long id = ids.id("site-é-1");

        assertThat(ids.id(new Utf8("site-é-1"))).isEqualTo(id);
        assertThat(ids.id("site-é-1".getBytes(StandardCharsets.UTF_8))).isEqualTo(id);
        assertThat(ids.string(id)).isEqualTo("site-é-1");
        assertThat(ids.id("site-é-2")).isNotEqualTo(id);
        assertThat(ids.id("")).isNotEqualTo(StringIds.NULL);
        assertThat(ids.string(ids.id(""))).isEmpty();
    }

    @Test
    void shouldReadAKeyInPlaceInsideItsBatch() {
        long id = ids.id("ns/wf-1/3");
        byte[] batch = "..ns/wf-1/3:ns/wf-1/4..".getBytes(StandardCharsets.UTF_8);
        RecentIds recent = new RecentIds(ids, 1);

        assertThat(ids.id(batch, 2, 9)).isEqualTo(id);
        assertThat(recent.id(0, ByteBuffer.wrap(batch, 2, 9).slice())).isEqualTo(id);
        assertThat(recent.id(0, ByteBuffer.wrap(batch, 12, 9).slice())).isEqualTo(ids.id("ns/wf-1/4"));
        assertThat(recent.id(0, ByteBuffer.wrap(batch, 2, 9).slice().asReadOnlyBuffer())).isEqualTo(id);
    }

    @Test
    void shouldReadOnlyTheFilledPartOfAReusedBuffer() {
        Utf8 buffer = new Utf8("short-and-a-longer-previous-value");
        buffer.setByteLength(5); // as Avro reuses a buffer: the array's tail still holds the old bytes
        assertThat(buffer.getBytes().length).isGreaterThan(5);

        assertThat(ids.string(ids.id(buffer))).isEqualTo("short");
        assertThat(ids.id("short")).isEqualTo(ids.id(buffer));
    }

    /**
     * The hash reads a string's last eight bytes at once, overlapping bytes read before: a change to any byte, at any
     * length and offset, must still change it (else such strings share slots and segments), and the hash must not read
     * outside the string.
     */
    @Test
    void shouldHashEveryByteInPlace() {
        java.util.Random random = new java.util.Random(19);
        for (int length = 0; length <= 40; length++) {
            for (int offset = 0; offset < 9; offset++) {
                byte[] a = new byte[offset + length + 9];
                for (int i = 0; i < a.length; i++) {
                    a[i] = (byte) (0x20 + random.nextInt(0x5f));
                }
                byte[] elsewhere = new byte[length];
                System.arraycopy(a, offset, elsewhere, 0, length);
                assertThat(StringIds.hash(elsewhere, length)).as("the same bytes elsewhere").isEqualTo(StringIds.hash(a, offset, length));
                a[offset - 1 < 0 ? a.length - 1 : offset - 1] ^= 0x01; // a byte outside the string
                a[offset + length] ^= 0x01;
                assertThat(StringIds.hash(a, offset, length)).as("bytes around it, length %d", length).isEqualTo(StringIds.hash(elsewhere, length));
                for (int i = 0; i < length; i++) {
                    byte was = a[offset + i];
                    a[offset + i] ^= 0x04;
                    assertThat(StringIds.hash(a, offset, length)).as("byte %d of %d changed", i, length).isNotEqualTo(StringIds.hash(elsewhere, length));
                    a[offset + i] = was;
                }
            }
        }
    }

    /** The compare of a hash match agrees with {@code Arrays.equals} for every length to 40 and a change at any byte. */
    @Test
    void shouldCompareBytesAsArraysEqualsDoesAtEveryLengthAndPosition() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(19);
        for (int length = 0; length <= 40; length++) {
            byte[] a = new byte[length + 5];
            random.nextBytes(a);
            byte[] b = new byte[length + 3];
            System.arraycopy(a, 5, b, 3, length);
            assertThat(StringIds.sameBytes(a, 5, b, 3, length)).as("equal, length %d", length).isTrue();
            for (int i = 0; i < length; i++) {
                b[3 + i] ^= (byte) (1 << random.nextInt(8));
                assertThat(StringIds.sameBytes(a, 5, b, 3, length)).as("byte %d of %d differs", i, length).isFalse();
                b[3 + i] = a[5 + i];
            }
        }
    }

    @Test
    void shouldMapNullToIdZeroAndRefuseAnIdItNeverGave() {
        assertThat(ids.id((String) null)).isEqualTo(StringIds.NULL);
        assertThat(ids.id((Utf8) null)).isEqualTo(StringIds.NULL);
        assertThat(ids.string(StringIds.NULL)).isNull();
        assertThatThrownBy(() -> ids.string(1_000_000)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1000000");
    }

    @Test
    void shouldKeepIdsNearlyDenseAndStableThroughGrowth() {
        Map<String, Long> given = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            given.put("request-" + i, ids.id("request-" + i));
        }
        given.forEach((s, id) -> {
            assertThat(ids.id(s)).isEqualTo(id);
            assertThat(ids.string(id)).isEqualTo(s);
        });
        long max = given.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(new HashSet<>(given.values())).hasSize(200_000);
        assertThat(max).as("group keys stay small").isLessThan(200_000 + 200_000 / 10);
    }

    @Test
    void shouldKeepEveryIdWhenRoomIsMadeBeforeOrBetweenStrings() {
        Map<String, Long> given = new HashMap<>();
        for (int i = 0; i < 1_000; i++) {
            given.put("site-" + i, ids.id("site-" + i));
        }
        ids.expect(100_000, 40); // after some strings: what they were given must not move
        for (int i = 1_000; i < 50_000; i++) {
            given.put("site-" + i, ids.id("site-" + i));
        }
        ids.expect(10, 1); // less than there is room for: nothing to do
        ids.expect(Long.MAX_VALUE / 2, 40); // more than a segment can index: ignored, strings still grow it as they come

        given.forEach((s, id) -> {
            assertThat(ids.id(s)).isEqualTo(id);
            assertThat(ids.string(id)).isEqualTo(s);
        });
        assertThat(ids.id("one-more-after-all-that")).isNotIn(given.values());
    }

    @Test
    void shouldGiveConcurrentWorkersTheSameIdForTheSameString() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<long[]>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int offset = t;
                Callable<long[]> intern = () -> {
                    long[] got = new long[50_000];
                    for (int i = 0; i < got.length; i++) {
                        int n = (i + offset * 997) % got.length; // each worker in its own order
                        got[n] = ids.id("site-" + n);
                    }
                    return got;
                };
                runs.add(pool.submit(intern));
            }
            long[] first = runs.get(0).get();
            for (Future<long[]> run : runs) {
                assertThat(run.get()).containsExactly(first);
            }
            assertThat(ids.string(first[49_999])).isEqualTo("site-49999");
        } finally {
            pool.shutdownNow();
        }
    }
}
