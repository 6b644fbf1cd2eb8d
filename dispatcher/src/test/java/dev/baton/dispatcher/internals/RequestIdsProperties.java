package dev.baton.dispatcher.internals;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.UUID;
import java.util.regex.Pattern;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link RequestIds#lowOf} keys the waiting dispatches: it must give a value to every id the instance handed out and
 * never give one string's value to another string. Replay a failure from the seed jqwik prints.
 */
class RequestIdsProperties {

    private static final Pattern CANONICAL = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    @Property(tries = 300)
    void shouldKeyEveryIdItHandsOutByItsLowHalf(@ForAll long seed, @ForAll @IntRange(min = 0, max = 1000) int skip) {
        RequestIds ids = new RequestIds(new Random(seed));
        for (int i = 0; i < skip; i++) {
            ids.next();
        }
        String id = ids.next();

        Long low = ids.lowOf(id);

        assertThat(low).as(id).isNotNull();
        assertThat(ids.format(low)).isEqualTo(id);
    }

    /** Against an oracle: the JDK's UUID parser behind a pattern of the canonical lowercase form. */
    @Property(tries = 3000)
    void shouldKeyAChangedIdExactlyWhenItIsStillACanonicalIdOfThisInstance(
            @ForAll long seed, @ForAll @IntRange(min = 0, max = 35) int at, @ForAll @CharRange(from = ' ', to = '~') char replacement) {
        RequestIds ids = new RequestIds(new Random(seed));
        String id = ids.next();
        String changed = id.substring(0, at) + replacement + id.substring(at + 1);

        Long low = ids.lowOf(changed);

        boolean canonical = CANONICAL.matcher(changed).matches()
                && UUID.fromString(changed).getMostSignificantBits() == UUID.fromString(id).getMostSignificantBits();
        if (canonical) {
            assertThat(low).as(changed).isEqualTo(UUID.fromString(changed).getLeastSignificantBits());
        } else {
            assertThat(low).as(changed).isNull();
        }
    }

    @Property(tries = 300)
    void shouldNotKeyAnotherInstancesIds(@ForAll long seedA, @ForAll long seedB) {
        RequestIds a = new RequestIds(new Random(seedA));
        RequestIds b = new RequestIds(new Random(seedB));
        String theirs = b.next();

        Long low = a.lowOf(theirs);

        if (low != null) { // only if both drew the same high half
            assertThat(a.format(low)).isEqualTo(theirs);
        }
    }
}
