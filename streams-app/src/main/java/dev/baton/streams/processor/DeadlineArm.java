package dev.baton.streams.processor;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Optional;

import dev.baton.events.store.SiteState;
import dev.baton.schemas.CompletionToken;
import dev.baton.streams.state.DeadlineKind;
import dev.baton.streams.state.StepInput;

/**
 * Which input armed a deadline, as an at-least-once deadline record carries it: the input's stamp
 * ({@link StepInput#armStamp()}) and a proof made with the site's secret that the streams app wrote it.
 *
 * <p>Why a deadline record names its arming input and not only its due time: after a crash that lost
 * a row's writes, the inputs since the last commit are read again, later by the wall clock. A report
 * (a lease, a heartbeat, a failure) read again arms its deadline from now, later than the first time,
 * while the deadline record of the first arming is already in the log, its outcome maybe delivered.
 * Matched by due time, that record would be stale and the deadline decided again, later and perhaps
 * otherwise (a timeout first, a completion second). Matched by arming input, it fires the deadline that
 * input armed, both times. The proof keeps the rule that a forged record fires nothing early: offsets
 * can be guessed, the site's secret cannot.
 */
record DeadlineArm(long stamp, byte[] proof) {

    private static final int PROOF_BYTES = CompletionToken.BYTES;
    private static final int BYTES = Long.BYTES + PROOF_BYTES;
    private static final byte[] DOMAIN = {'d', 'e', 'a', 'd', 'l', 'i', 'n', 'e'};

    /** What a record for the row's {@code kind} deadline carries; empty for one no input armed, or a row without a secret. */
    static Optional<DeadlineArm> of(SiteState state, DeadlineKind kind) {
        Long stamp = state.getDeadlineInputs().get(kind.name());
        if (stamp == null || state.getTokenSecret() == null) {
            return Optional.empty();
        }
        return Optional.of(new DeadlineArm(stamp, proof(state, kind, stamp)));
    }

    /** The header value: the stamp, then the proof. */
    byte[] toHeader() {
        return ByteBuffer.allocate(BYTES).putLong(stamp).put(proof).array();
    }

    /** The arming a header names; empty for none, or a value no task wrote. */
    static Optional<DeadlineArm> parse(byte[] header) {
        if (header == null || header.length != BYTES) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(header);
        long stamp = b.getLong();
        byte[] proof = new byte[PROOF_BYTES];
        b.get(proof);
        return Optional.of(new DeadlineArm(stamp, proof));
    }

    /** Whether the row's {@code kind} deadline is armed by this input, as the streams app said (constant-time proof check). */
    boolean armed(SiteState state, DeadlineKind kind) {
        Long current = state.getDeadlineInputs().get(kind.name());
        return current != null && current == stamp && state.getTokenSecret() != null
                && MessageDigest.isEqual(proof, proof(state, kind, stamp));
    }

    private static byte[] proof(SiteState state, DeadlineKind kind, long stamp) {
        ByteBuffer secret = state.getTokenSecret().duplicate();
        byte[] key = new byte[secret.remaining()];
        secret.get(key);
        byte[] message = ByteBuffer.allocate(DOMAIN.length + 1 + Long.BYTES).put(DOMAIN).put((byte) kind.ordinal()).putLong(stamp).array();
        return CompletionToken.siteProof(key, message);
    }
}
