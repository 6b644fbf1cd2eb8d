package dev.baton.dispatcher.internals;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Random;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.Test;

class DeliveredOutcomesTest {

    private final DeliveredOutcomes delivered = new DeliveredOutcomes();

    @Test
    void shouldTakeTheFirstOutcomeOfARequestAsNoCopy() {
        assertThat(delivered.isCopy(outcome("r1", 1, true, null, "ok"))).isFalse();
    }

    @Test
    void shouldTakeAnIdenticalSecondOutcomeAsACopy() {
        delivered.isCopy(outcome("r1", 1, true, null, "ok"));

        assertThat(delivered.isCopy(outcome("r1", 1, true, null, "ok"))).isTrue();
    }

    @Test
    void shouldTakeAnOutcomeDifferingInAnyPartOfItsIdentityAsNoCopy() {
        delivered.isCopy(outcome("r1", 1, false, "retryable: x", "ok"));

        assertThat(delivered.isCopy(outcome("r1", 2, false, "retryable: x", "ok"))).as("attempt").isFalse();
        assertThat(delivered.isCopy(outcome("r1", 1, true, "retryable: x", "ok"))).as("status").isFalse();
        assertThat(delivered.isCopy(outcome("r1", 1, false, "retryable: y", "ok"))).as("reason").isFalse();
        assertThat(delivered.isCopy(outcome("r1", 1, false, null, "ok"))).as("no reason").isFalse();
        assertThat(delivered.isCopy(outcome("r1", 1, false, "retryable: x", "ok!"))).as("output").isFalse();
        assertThat(delivered.isCopy(new ActivityOutcome(new SiteKey("ns", "wf", "other"), "r1", 1, false,
                "ok".getBytes(StandardCharsets.UTF_8), null, "retryable: x", "w", false))).as("site").isFalse();
        assertThat(delivered.isCopy(outcome("r1", 1, false, "retryable: x", "ok"))).as("the first, again").isTrue();
    }

    @Test
    void shouldForgetTheOldestRequestsBeyondItsCapacity() {
        for (int i = 0; i < DeliveredOutcomes.CAPACITY + 1; i++) {
            delivered.isCopy(outcome("r" + i, 1, true, null, "ok"));
        }

        assertThat(delivered.isCopy(outcome("r1", 1, true, null, "ok"))).as("still remembered").isTrue();
        assertThat(delivered.isCopy(outcome("r0", 1, true, null, "ok"))).as("forgotten").isFalse();
    }

    /** Against the map of objects it replaced: same answers over random ids, repeats and evictions (seeded). */
    @Test
    void shouldAnswerAsAnInsertionOrderedMapOfIdentitiesDoes() {
        Map<String, Object> reference = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Object> eldest) {
                return size() > DeliveredOutcomes.CAPACITY;
            }
        };
        Random random = new Random(29);
        for (int step = 0; step < 400_000; step++) {
            String id = "r" + random.nextInt(DeliveredOutcomes.CAPACITY * 2);
            ActivityOutcome o = outcome(id, 1 + random.nextInt(2), true, null, random.nextBoolean() ? "a" : "b");
            Object identity = java.util.List.of(o.attempt(), new String(o.output(), StandardCharsets.UTF_8));
            Object first = reference.putIfAbsent(id, identity);
            boolean expected = first != null && Objects.equals(first, identity);

            assertThat(delivered.isCopy(o)).as("step %d, %s", step, id).isEqualTo(expected);
        }
    }

    private static ActivityOutcome outcome(String requestId, int attempt, boolean completed, String reason, String output) {
        return new ActivityOutcome(new SiteKey("ns", "wf", "1"), requestId, attempt, completed, output.getBytes(StandardCharsets.UTF_8),
                "text/plain", reason, "w-1", false);
    }
}
