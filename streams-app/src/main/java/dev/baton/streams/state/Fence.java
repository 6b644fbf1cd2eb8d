package dev.baton.streams.state;

import dev.baton.events.store.SiteState;
import dev.baton.schemas.CompletionToken;

/**
 * The fence of a site: the one token its current generation accepts. It is a field of the site's row
 * in {@code sites}, not a store of its own, so issuing or revoking it rides on the site write the
 * same step makes anyway (one changelog record instead of two).
 *
 * <p>Acceptance and revocation need no locks and no restore-after-failure path: one Streams task
 * processes every event of a site in order, and the row commits in the same Kafka transaction as
 * the records the step causes. A crash between "accepted" and "published" cannot happen; the whole
 * step is replayed or none of it is visible. Callers write the row after changing its fence.
 */
public final class Fence {

    private Fence() {
    }

    /** Issues a fresh token for the state's current generation, revoking every earlier one. */
    public static CompletionToken issue(SiteState state) {
        CompletionToken token = CompletionToken.random();
        state.setToken(token.value());
        return token;
    }

    /** Whether {@code token} is the current generation's token (constant-time compare). */
    public static boolean accepts(SiteState state, String token) {
        return state.getToken() != null && token != null && new CompletionToken(state.getToken()).matches(token);
    }

    /** Revokes the outstanding token: no report of this generation is accepted any more. */
    public static void revoke(SiteState state) {
        state.setToken(null);
    }
}
