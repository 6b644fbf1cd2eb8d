package dev.baton.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/** The request's name rules against the patterns they promise, on generated names (replay a failure from its seed). */
class ActivityRequestProperties {

    private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9_-]{1,100}");
    private static final Pattern ACTIVITY_TYPE = Pattern.compile("[A-Za-z0-9_.$-]{1,200}");

    private static ActivityRequest.Builder valid() {
        return ActivityRequest.builder().site("payments", "order-42", "3").queue("payments").activityType("charge");
    }

    @Property(tries = 1000)
    void shouldAcceptAQueueNameExactlyWhenItMatchesThePattern(@ForAll("names") String queue) {
        if (QUEUE.matcher(queue).matches()) {
            assertThat(valid().queue(queue).build().queue()).isEqualTo(queue);
        } else {
            assertThatThrownBy(() -> valid().queue(queue).build()).hasMessage("queue must match [A-Za-z0-9_-]{1,100}, was '" + queue + "'");
        }
    }

    @Property(tries = 1000)
    void shouldAcceptAnActivityTypeExactlyWhenItMatchesThePattern(@ForAll("names") String activityType) {
        if (ACTIVITY_TYPE.matcher(activityType).matches()) {
            assertThat(valid().activityType(activityType).build().activityType()).isEqualTo(activityType);
        } else {
            assertThatThrownBy(() -> valid().activityType(activityType).build())
                    .hasMessage("activityType must match [A-Za-z0-9_.$-]{1,200}, was '" + activityType + "'");
        }
    }

    @Property(tries = 200)
    void shouldKeepTheIdempotencyKeyWhateverTheAttempt(@ForAll @IntRange(min = 1) int attempt, @ForAll("names") String runId) {
        ActivityRequest first = valid().runId(runId).build();

        assertThat(first.withAttempt(attempt).idempotencyKey()).isEqualTo(first.idempotencyKey());
    }

    /** Names of allowed characters only, or with a few others mixed in, at lengths near zero and near both limits. */
    @Provide
    Arbitrary<String> names() {
        Arbitrary<Character> allowed = Arbitraries.chars().range('a', 'z').range('A', 'Z').range('0', '9').with('_', '-');
        Arbitrary<Character> other = Arbitraries.chars().with('.', '$', '/', ' ', ':', '%', '\u00e9', '\u0000');
        Arbitrary<Character> mixed = Arbitraries.frequencyOf(Tuple.of(20, allowed), Tuple.of(1, other));
        return Arbitraries.oneOf(ofTestedLengths(allowed), ofTestedLengths(mixed))
                .map(chars -> chars.stream().map(String::valueOf).collect(Collectors.joining()));
    }

    private static Arbitrary<List<Character>> ofTestedLengths(Arbitrary<Character> chars) {
        return Arbitraries.oneOf(chars.list().ofMaxSize(8), chars.list().ofMinSize(95).ofMaxSize(105),
                chars.list().ofMinSize(195).ofMaxSize(205));
    }
}
