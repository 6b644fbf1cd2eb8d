package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class RecentIdsTest {

    @Test
    void shouldAnswerTheDictionarysIdsWhetherAStringIsRememberedOrNot() {
        StringIds ids = new StringIds();
        RecentIds recent = new RecentIds(ids, 2);
        SplittableRandom random = new SplittableRandom(40);
        for (int i = 0; i < 5_000; i++) {
            // 2 to 9 values: fewer than the strings remembered per column, and more
            String s = "type-" + random.nextInt(2 + i / 1_000);
            byte[] padded = ("xx" + s + "yy").getBytes(StandardCharsets.UTF_8);
            int column = random.nextInt(2);
            assertThat(recent.idOfDecodedForm(column, padded, 2, padded.length - 4)).as("%s in column %d", s, column).isEqualTo(ids.id(s));
        }
    }

    @Test
    void shouldAnswerAnIllFormedStringWithItsDecodedFormsId() {
        StringIds ids = new StringIds();
        RecentIds recent = new RecentIds(ids, 1);
        byte[] illFormed = {'q', (byte) 0xff, 'x'};
        long decoded = ids.id("q\uFFFDx");
        assertThat(recent.idOfDecodedForm(0, illFormed, 0, 3)).isEqualTo(decoded);
        assertThat(recent.idOfDecodedForm(0, illFormed, 0, 3)).isEqualTo(decoded); // again, not remembered by its raw bytes
        byte[] same = "q\uFFFDx".getBytes(StandardCharsets.UTF_8);
        assertThat(recent.idOfDecodedForm(0, same, 0, same.length)).isEqualTo(decoded);
    }
}
