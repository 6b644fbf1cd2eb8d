package dev.baton.schemas;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;

/**
 * The authorization a generation carries: 128 random bits from {@link SecureRandom}, rendered
 * URL-safe base64 without padding (22 characters). Never derivable from ids; compared in constant
 * time so a guesser learns nothing from timing.
 */
public record CompletionToken(String value) {

    public static final int BYTES = 16;
    public static final int LENGTH = 22;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    public CompletionToken {
        Objects.requireNonNull(value, "token");
    }

    public static CompletionToken random() {
        byte[] bits = new byte[BYTES];
        RANDOM.nextBytes(bits);
        return new CompletionToken(ENCODER.encodeToString(bits));
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
}
