package dev.baton.streams.config;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class TokenKeyAgreementTest {

    @Test
    void theFirstClaimIsInForceUntilARotationAndTheLastRotationAfter() {
        assertThat(TokenKeyAgreement.inForce(List.of())).isEmpty();
        // two instances started at once with different keys: both claimed, the first one written wins
        assertThat(TokenKeyAgreement.inForce(List.of(claim("a"), claim("b")))).contains("a");
        assertThat(TokenKeyAgreement.inForce(List.of(claim("a"), rotate("b"), claim("c")))).contains("b");
        assertThat(TokenKeyAgreement.inForce(List.of(claim("a"), rotate("b"), rotate("c")))).contains("c");
    }

    @Test
    void aFingerprintTellsKeysApartAndShowsNothingOfTheKey() {
        byte[] key = "a token key of thirty-two bytes!".getBytes(UTF_8);
        String fingerprint = TokenKeyAgreement.fingerprint(key);
        assertThat(fingerprint).hasSize(16).isEqualTo(TokenKeyAgreement.fingerprint(key.clone()))
                .isNotEqualTo(TokenKeyAgreement.fingerprint("another key of thirty-two bytes!".getBytes(UTF_8)));
        assertThat(new String(key, UTF_8)).doesNotContain(fingerprint);
    }

    private static String[] claim(String fingerprint) {
        return new String[] {TokenKeyAgreement.CLAIM, fingerprint};
    }

    private static String[] rotate(String fingerprint) {
        return new String[] {TokenKeyAgreement.ROTATE, fingerprint};
    }
}
