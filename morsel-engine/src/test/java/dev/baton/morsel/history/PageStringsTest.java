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
}
