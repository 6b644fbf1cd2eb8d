package dev.baton.worker;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

import dev.baton.schemas.SiteKey;

/**
 * A generation's completion token with the site, attempt and generation it belongs to: all another
 * thread or process needs to complete, fail or heartbeat that generation
 * ({@link ActivityCompletionClient}). Its text form ({@link #render()}) is opaque to users and safe
 * in URLs: {@code base64url(site key) . attempt . generation . token}.
 *
 * <p>Holding one is holding the generation's authority: only the current generation's token is
 * accepted, so once Baton re-delivers the attempt (transport loss, park) or the run ends, a completion
 * by this reference is refused.
 */
public record CompletionRef(SiteKey site, int attempt, int generation, String token) {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    public CompletionRef {
        Objects.requireNonNull(site, "site");
        Objects.requireNonNull(token, "token");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
        }
        if (generation < 1) {
            throw new IllegalArgumentException("generation must be >= 1, was " + generation);
        }
        if (token.isEmpty() || token.contains(".")) {
            throw new IllegalArgumentException("token must be a non-empty URL-safe string without '.', was '" + token + "'");
        }
    }

    public String render() {
        return ENCODER.encodeToString(site.toBytes()) + "." + attempt + "." + generation + "." + token;
    }

    /**
     * Reads {@link #render()}'s text.
     *
     * @throws IllegalArgumentException naming what is wrong with {@code text}
     */
    public static CompletionRef parse(String text) {
        Objects.requireNonNull(text, "completion reference");
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("a completion reference has 4 parts separated by '.', had " + parts.length + ": '" + text + "'");
        }
        try {
            SiteKey site = SiteKey.parse(new String(DECODER.decode(parts[0]), StandardCharsets.UTF_8));
            return new CompletionRef(site, Integer.parseInt(parts[1]), Integer.parseInt(parts[2]), parts[3]);
        } catch (IllegalArgumentException e) { // NumberFormatException and bad base64 included
            throw new IllegalArgumentException("not a completion reference: '" + text + "' (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public String toString() {
        return "CompletionRef[" + site + " attempt " + attempt + " gen " + generation + "]"; // the token is authority: never logged
    }
}
