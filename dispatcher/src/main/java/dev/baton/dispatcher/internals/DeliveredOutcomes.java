package dev.baton.dispatcher.internals;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import dev.baton.dispatcher.ActivityOutcome;

/**
 * The outcomes this client delivered last, by request id, so an identical copy of one is dropped
 * instead of reaching a caller twice. Copies are normal: a request sent again after its answer is
 * answered again (the same outcome), and a streams app running at-least-once re-emits a step's
 * outcomes when it reprocesses the step after a crash. Identical means the same site, attempt,
 * status, reason and output (not the worker or the time). A different outcome for a delivered
 * request id is no copy: it goes on to the unmatched handler. Bounded: the oldest are forgotten
 * first, so a copy arriving after {@link #CAPACITY} newer outcomes reaches the unmatched handler.
 * One result thread uses it; not thread-safe.
 */
final class DeliveredOutcomes {

    static final int CAPACITY = 65_536;

    private record Identity(Object site, int attempt, boolean completed, String reason, int outputHash) {
        static Identity of(ActivityOutcome o) {
            return new Identity(o.site(), o.attempt(), o.completed(), o.reason(), Arrays.hashCode(o.output()));
        }
    }

    private final Map<String, Identity> recent = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Identity> eldest) {
            return size() > CAPACITY;
        }
    };

    /** Whether {@code outcome} copies one delivered already for its request id; records it otherwise (the first of its id). */
    boolean isCopy(ActivityOutcome outcome) {
        Identity identity = Identity.of(outcome);
        Identity first = recent.putIfAbsent(outcome.requestId(), identity);
        return first != null && Objects.equals(first, identity);
    }
}
