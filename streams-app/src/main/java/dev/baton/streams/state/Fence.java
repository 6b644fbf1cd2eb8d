package dev.baton.streams.state;

import java.nio.ByteBuffer;

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
 *
 * <p>Tokens are derived from the site's secret ({@link CompletionToken#derive}), so besides the
 * current token the fence can recognise any token the site issued earlier: {@link #classify} tells
 * a late report of a past generation, which may be relayed or quietly ignored, from a forged one,
 * which must touch nothing and nobody.
 */
public final class Fence {

    /** What a token presented with a report is to a site. */
    public enum Claim {
        /** The current generation's token: the report counts. */
        CURRENT,
        /** A token this site issued to the (attempt, generation) the report names, now revoked. */
        ISSUED,
        /** Neither: never issued by this site for what the report names. */
        FORGED
    }

    private Fence() {
    }

    /** Issues the token of the state's current attempt and generation, revoking every earlier one. */
    public static CompletionToken issue(SiteState state) {
        if (state.getTokenSecret() == null) {
            state.setTokenSecret(ByteBuffer.wrap(CompletionToken.newSiteSecret()));
        }
        CompletionToken token = CompletionToken.derive(secret(state), state.getAttempt(), state.getGeneration());
        state.setToken(token.value());
        return token;
    }

    /** Whether {@code token} is the current generation's token (constant-time compare). */
    public static boolean accepts(SiteState state, String token) {
        return state.getToken() != null && token != null && new CompletionToken(state.getToken()).matches(token);
    }

    /**
     * What {@code token}, presented for ({@code attempt}, {@code generation}), is to this site. The
     * attempt and generation are part of what a token proves: the current token presented for any
     * other (attempt, generation) was never issued for it, and is forged (history would otherwise
     * record a generation that never existed as the one that completed).
     */
    public static Claim classify(SiteState state, String token, int attempt, int generation) {
        if (accepts(state, token)) {
            return attempt == state.getAttempt() && generation == state.getGeneration() ? Claim.CURRENT : Claim.FORGED;
        }
        if (state.getTokenSecret() != null && token != null && attempt >= 1 && generation >= 1
                && CompletionToken.derive(secret(state), attempt, generation).matches(token)) {
            return Claim.ISSUED;
        }
        return Claim.FORGED;
    }

    /** Revokes the outstanding token: no report of this generation is accepted any more. */
    public static void revoke(SiteState state) {
        state.setToken(null);
    }

    private static byte[] secret(SiteState state) {
        ByteBuffer b = state.getTokenSecret().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
