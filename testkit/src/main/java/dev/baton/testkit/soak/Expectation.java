package dev.baton.testkit.soak;

import java.util.function.Predicate;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.schemas.Reasons;

/**
 * The outcomes a request may get, given the role it plays in its scenario, with the words that say
 * so in a report. Immutable.
 */
public record Expectation(String role, String allowed, Predicate<ActivityOutcome> test) {

    public boolean accepts(ActivityOutcome o) {
        return o != null && test.test(o);
    }

    static Expectation completedWith(String role, String output) {
        return new Expectation(role, "completed with its input echoed", o -> o.completed() && o.outputAsString().equals(output));
    }

    static Expectation completed(String role) {
        return new Expectation(role, "completed", ActivityOutcome::completed);
    }

    static Expectation completedAtAttempt(String role, int attempt) {
        return new Expectation(role, "completed at attempt " + attempt, o -> o.completed() && o.attempt() == attempt);
    }

    static Expectation failed(String role, String reasonStart) {
        return new Expectation(role, "'" + reasonStart + "...'", o -> !o.completed() && o.reason() != null && o.reason().startsWith(reasonStart));
    }

    /** This, or {@code other}. */
    Expectation or(Expectation other) {
        return new Expectation(role, allowed + " or " + other.allowed, o -> test.test(o) || other.test.test(o));
    }

    /** This, and {@code more} too (said as {@code what}). */
    Expectation and(String what, Predicate<ActivityOutcome> more) {
        return new Expectation(role, allowed + " " + what, o -> test.test(o) && more.test(o));
    }

    /**
     * This, or {@code transport-exhausted:}: a site whose workers keep dying spends the transport's
     * budget, which is the budget doing its job. Only for requests whose work is leased at all.
     */
    Expectation orTransportExhausted() {
        return or(failed(role, Reasons.TRANSPORT_EXHAUSTED));
    }
}
