package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.schemas.payload.PayloadConverters;
import org.junit.jupiter.api.Test;

/** Found by an adversary: a handler's exception whose getMessage throws used to escape, and no report went out at all. */
class FailuresTest {

    private static final class Hostile extends RuntimeException {
        @Override
        public String getMessage() {
            throw new UnsupportedOperationException("getMessage refuses");
        }
    }

    @Test
    void shouldReportAnExceptionWhoseMessageThrows() {
        assertThat(Failures.reason(new Hostile())).startsWith("retryable: Hostile: (its message could not be read");
        assertThat(Failures.failure(new Hostile(), PayloadConverters.defaults()).type()).isEqualTo(Hostile.class.getName());
    }
}
