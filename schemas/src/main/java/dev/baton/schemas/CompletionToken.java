package dev.baton.schemas;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The authorization a generation carries: 128 bits rendered URL-safe base64 without padding (22
 * characters), compared in constant time so a guesser learns nothing from timing.
 *
 * <p>A site's tokens are derived from a secret of its own ({@link #newSiteSecret()}, 128 bits from
 * {@link SecureRandom}): the token of (attempt, generation) is the first 128 bits of
 * HMAC-SHA256(secret, attempt/generation). Without the secret a token is as unguessable as random
 * bits and never derivable from ids; with it, the site can tell a token it issued to an earlier
 * generation (a late report, relayed or quietly ignored) from a forged one (refused, no effect on
 * anybody). {@link #random()} remains for tests and for sites stored before secrets existed.
 *
 * <p>{@link #fingerprint()} is what a stop request carries instead of the token: a worker stops only
 * the run whose token has that fingerprint, and the fingerprint does not reveal the token.
 */
public record CompletionToken(String value) {

    public static final int BYTES = 16;
    public static final int LENGTH = 22;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final String HMAC = "HmacSHA256";
    private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(CompletionToken::newMac);
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(CompletionToken::newSha256);
    private static final ThreadLocal<KeyedMac> KEYED_MACS = ThreadLocal.withInitial(KeyedMac::new);

    public CompletionToken {
        Objects.requireNonNull(value, "token");
    }

    public static CompletionToken random() {
        byte[] bits = new byte[BYTES];
        RANDOM.nextBytes(bits);
        return new CompletionToken(ENCODER.encodeToString(bits));
    }

    /** A fresh secret for a new site's tokens. */
    public static byte[] newSiteSecret() {
        byte[] secret = new byte[BYTES];
        RANDOM.nextBytes(secret);
        return secret;
    }

    /**
     * A site's secret derived from the streams app's token key and the dispatch record that created
     * the site's row (its partition and offset): the same record always yields the same secret. Under
     * at-least-once processing a row's write can be lost while the tasks it published were delivered;
     * reprocessing the record then re-creates the row with the secret those tasks' tokens came from,
     * so their reports still count. Without the key a token is as unguessable as with a random secret.
     */
    public static byte[] siteSecret(byte[] tokenKey, byte[] siteKey, int partition, long offset) {
        Mac mac = KEYED_MACS.get().keyedWith(tokenKey);
        mac.update(siteKey);
        byte[] full = mac.doFinal(ByteBuffer.allocate(12).putInt(partition).putLong(offset).array());
        return Arrays.copyOf(full, BYTES);
    }

    /** The token of one generation of one attempt of the site whose secret is {@code siteSecret}. */
    public static CompletionToken derive(byte[] siteSecret, int attempt, int generation) {
        Mac mac = MACS.get();
        try {
            mac.init(new SecretKeySpec(siteSecret, HMAC));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC key rejected", e);
        }
        byte[] full = mac.doFinal(ByteBuffer.allocate(8).putInt(attempt).putInt(generation).array());
        return new CompletionToken(ENCODER.encodeToString(Arrays.copyOf(full, BYTES)));
    }

    /**
     * A proof that the holder of {@code siteSecret} (the streams app) said {@code message} about the
     * site: its first 128 bits of HMAC-SHA256. Messages must not be 8 bytes long, the length of what
     * {@link #derive} signs, so no proof is ever a token.
     */
    public static byte[] siteProof(byte[] siteSecret, byte[] message) {
        if (message.length == 8) {
            throw new IllegalArgumentException("an 8-byte message would sign what a token signs");
        }
        Mac mac = MACS.get();
        try {
            mac.init(new SecretKeySpec(siteSecret, HMAC));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC key rejected", e);
        }
        return Arrays.copyOf(mac.doFinal(message), BYTES);
    }

    /** The fingerprint of {@code token}: the first 128 bits of its SHA-256, URL-safe base64. */
    public static String fingerprint(String token) {
        byte[] digest = SHA256.get().digest(token.getBytes(StandardCharsets.US_ASCII));
        return ENCODER.encodeToString(Arrays.copyOf(digest, BYTES));
    }

    public String fingerprint() {
        return fingerprint(value);
    }

    /** True when {@code candidate} is this token; constant time in the token's length. */
    public boolean matches(String candidate) {
        if (candidate == null) {
            return false;
        }
        return MessageDigest.isEqual(value.getBytes(StandardCharsets.US_ASCII), candidate.getBytes(StandardCharsets.US_ASCII));
    }

    /** Tokens are secrets: logs show a prefix only. */
    @Override
    public String toString() {
        return value.length() <= 4 ? "****" : value.substring(0, 4) + "…";
    }

    /**
     * A MAC kept initialized with the last token key it was given: every new site's secret is signed with the streams
     * app's one key, and initializing HMAC (hashing the padded key twice) was a third of each secret's cost. A MAC is
     * back to its initialized state after {@code doFinal}. The key is compared by content, so a caller may pass a copy.
     */
    private static final class KeyedMac {
        private final Mac mac = newMac();
        private byte[] key;

        Mac keyedWith(byte[] tokenKey) {
            if (key == null || !Arrays.equals(key, tokenKey)) {
                try {
                    mac.init(new SecretKeySpec(tokenKey, HMAC));
                } catch (GeneralSecurityException e) {
                    key = null;
                    throw new IllegalStateException("HMAC key rejected", e);
                }
                key = tokenKey.clone();
            }
            return mac;
        }
    }

    private static Mac newMac() {
        try {
            return Mac.getInstance(HMAC);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java 17 runtime has " + HMAC, e);
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java 17 runtime has SHA-256", e);
        }
    }
}
