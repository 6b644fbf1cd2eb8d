package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class PageStringsTest {

    private static long add(PageStrings s, String string) {
        byte[] b = string.getBytes(StandardCharsets.UTF_8);
        return s.add(b, 0, b.length);
    }

    private static String string(PageStrings s, long ref) {
        return new String(s.bytes(), PageStrings.start(ref), s.length(ref), StandardCharsets.UTF_8);
    }

    @Test
    void shouldGiveAStringAddedAgainAnywhereInThePageItsFirstReference() {
        PageStrings s = new PageStrings();
        SplittableRandom random = new SplittableRandom(18);
        for (int page = 0; page < 3; page++) {
            s.clear();
            Map<String, Long> first = new HashMap<>();
            // past the index's first size (4,096 slots, grown at half), sites drawn again at random distances
            for (int i = 0; i < 20_000; i++) {
                String site = "demo/wf-" + random.nextInt(5_000) + "/" + random.nextInt(3);
                long ref = add(s, site);
                Long before = first.putIfAbsent(site, ref);
                assertThat(ref).as("page %d, string %d: %s", page, i, site).isEqualTo(before == null ? ref : before);
                assertThat(string(s, ref)).isEqualTo(site);
                assertThat(s.entry(ref)).isLessThan(first.size());
            }
            assertThat(s.entries()).isEqualTo(first.size());
        }
    }

    @Test
    void shouldNumberEntriesInTheOrderAddedAndStartEachPageAfresh() {
        PageStrings s = new PageStrings();
        long a = add(s, "a");
        long b = add(s, "b");
        assertThat(add(s, "a")).isEqualTo(a);
        assertThat(s.entry(a)).isZero();
        assertThat(s.entry(b)).isEqualTo(1);
        long page = s.page();
        s.clear();
        assertThat(s.page()).isNotEqualTo(page);
        long b2 = add(s, "b"); // the last page's entry is not this page's
        assertThat(s.entry(b2)).isZero();
        assertThat(s.entries()).isEqualTo(1);
        assertThat(string(s, add(s, "a"))).isEqualTo("a");
        assertThat(s.entries()).isEqualTo(2);
    }

    @Test
    void shouldLookUpOnlyTheLastStringWhenMadeLastOnly() {
        PageStrings s = PageStrings.perWorkerLastOnly(1)[0];
        long a = add(s, "request-1");
        assertThat(add(s, "request-1")).isEqualTo(a);
        add(s, "request-2");
        long again = add(s, "request-1");
        assertThat(again).isNotEqualTo(a);
        assertThat(string(s, again)).isEqualTo("request-1");
        assertThat(s.entry(again)).isEqualTo(2);
    }

    /**
     * A key is stored only if well-formed, a value string in its decoded form, whatever the byte that breaks it and
     * wherever it sits (the check rides on the hash's pass: ASCII is taken as it is, the rest checked whole). A key
     * met again is the same reference, and its check is not repeated.
     */
    @Test
    void shouldRefuseAnIllFormedKeyAndStoreAValueStringDecodedWhereverItsBadByteSits() {
        byte[][] bad = {{(byte) 0x80}, {(byte) 0xc0, (byte) 0xaf}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xf5, (byte) 0x80, (byte) 0x80, (byte) 0x80}, {(byte) 0xe2, (byte) 0x82}};
        byte[] good = "é€😀".getBytes(StandardCharsets.UTF_8);
        PageStrings keys = new PageStrings();
        PageStrings values = new PageStrings();
        for (int length = 0; length <= 24; length++) {
            for (int at = 0; at <= length; at++) {
                for (byte[] insert : bad) {
                    byte[] b = spliced(length, at, insert);
                    assertThat(keys.addWellFormed(java.nio.ByteBuffer.wrap(b))).as("ill-formed key of %d bytes, bad at %d", b.length, at).isEqualTo(PageStrings.ILL_FORMED);
                    long ref = values.addDecodedForm(b, 0, b.length);
                    assertThat(string(values, ref)).isEqualTo(new String(b, StandardCharsets.UTF_8));
                    assertThat(values.addDecodedForm(b, 0, b.length)).isEqualTo(ref);
                }
                byte[] b = spliced(length, at, good);
                long ref = keys.addWellFormed(java.nio.ByteBuffer.wrap(b));
                assertThat(ref).as("well-formed key of %d bytes", b.length).isGreaterThanOrEqualTo(0);
                assertThat(string(keys, ref)).isEqualTo(new String(b, StandardCharsets.UTF_8));
                assertThat(keys.addWellFormed(java.nio.ByteBuffer.wrap(b))).isEqualTo(ref);
                long value = values.addDecodedForm(b, 0, b.length);
                assertThat(value).isGreaterThanOrEqualTo(0);
                assertThat(string(values, value)).isEqualTo(new String(b, StandardCharsets.UTF_8));
            }
        }
    }

    /** {@code length} ASCII bytes with {@code insert} placed after the first {@code at}. */
    private static byte[] spliced(int length, int at, byte[] insert) {
        byte[] b = new byte[length + insert.length];
        for (int i = 0; i < length; i++) {
            b[i < at ? i : i + insert.length] = (byte) ('a' + i % 26);
        }
        System.arraycopy(insert, 0, b, at, insert.length);
        return b;
    }

    /**
     * Strings of one length and one 32-bit hash (found by birthday among 300,000 of each length) are told apart by their
     * bytes, whether the second comes right after the first (the last-string check) or further on (the index's probe):
     * lengths below, at and past eight bytes, and several eights long, where the compare reads eight bytes at a time.
     */
    @Test
    void shouldTellStringsOfOneHashAndLengthApartByTheirBytes() {
        int pairs = 0;
        String[][] shapes = {{"c", "", "6"}, {"c/", "", "7"}, {"coll/", "", "12"}, {"namespace/wf-", "/3", "20"}};
        for (String[] shape : shapes) {
            Map<Integer, String> byHash = new HashMap<>();
            String zeros = "0".repeat(Integer.parseInt(shape[2]));
            for (int i = 0; i < 300_000; i++) {
                String n = Integer.toString(i);
                String a = shape[0] + zeros.substring(n.length()) + n + shape[1];
                byte[] b = a.getBytes(StandardCharsets.UTF_8);
                String other = byHash.putIfAbsent(StringIds.hash(b, 0, b.length), a);
                if (other == null) {
                    continue;
                }
                pairs++;
                PageStrings s = new PageStrings();
                long first = add(s, other);
                long second = add(s, a);
                assertThat(second).as("%s right after %s, same hash", a, other).isNotEqualTo(first);
                add(s, "filler");
                assertThat(add(s, a)).isEqualTo(second);
                assertThat(add(s, other)).isEqualTo(first);
                assertThat(string(s, first)).isEqualTo(other);
                assertThat(string(s, second)).isEqualTo(a);
            }
        }
        assertThat(pairs).as("pairs of one hash found").isGreaterThanOrEqualTo(8);
    }
}
