package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.UUID;

import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Adversary round 22 (worker lifecycle), finding 6. {@link ActivityCompletionClient#fail(String, String,
 * dev.baton.schemas.failure.ActivityFailure)} sent any reason with a vocabulary prefix as is. A holder could
 * so end its site with Baton's own verdicts: {@code lost:} (by contract never final: the same attempt is
 * re-delivered), {@code superseded:} (a caller reading it waits for a higher attempt that does not exist),
 * {@code cancelled:}, {@code unavailable:}, {@code transport-exhausted:}. The streams app resolves the site failed
 * with that reason, not retried (only {@code retryable:} is). A worker's failure is {@code retryable:} or
 * {@code terminal:} (DESIGN §5); the rest must fail fast, naming the reason.
 */
class Adv22wForgedVerdictTest {

    private static final String TOKEN = new CompletionRef(new SiteKey("ns", "wf", "a"), 1, 1, CompletionToken.random().value()).render();

    @ParameterizedTest
    @ValueSource(strings = {Reasons.LOST, Reasons.SUPERSEDED, Reasons.CANCELLED, Reasons.UNAVAILABLE, Reasons.TRANSPORT_EXHAUSTED})
    void aFailureReasonThatIsBatonsOwnVerdictIsRefused(String prefix) {
        try (ActivityCompletionClient client = ActivityCompletionClient.create(Map.of("bootstrap.servers", "localhost:1",
                "max.block.ms", 500), "mem://" + UUID.randomUUID())) {
            assertThatThrownBy(() -> client.fail(TOKEN, prefix + " forged by the holder", null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(prefix + " forged by the holder").hasMessageContaining(Reasons.RETRYABLE)
                    .hasMessageContaining(Reasons.TERMINAL);
        }
    }
}
