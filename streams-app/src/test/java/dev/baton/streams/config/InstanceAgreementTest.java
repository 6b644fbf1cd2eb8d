package dev.baton.streams.config;

import static dev.baton.streams.config.InstanceAgreement.CHANGE;
import static dev.baton.streams.config.InstanceAgreement.CLAIM;
import static dev.baton.streams.config.InstanceAgreement.PROCESSING_GUARANTEE;
import static dev.baton.streams.config.InstanceAgreement.TOKEN_KEY;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class InstanceAgreementTest {

    @Test
    void theFirstClaimIsInForceUntilAChangeAndTheLastChangeAfter() {
        assertThat(InstanceAgreement.inForce(List.of(), TOKEN_KEY)).isEmpty();
        // two instances started at once with different keys: both claimed, the first one written wins
        assertThat(InstanceAgreement.inForce(List.of(key(CLAIM, "a"), key(CLAIM, "b")), TOKEN_KEY)).contains("a");
        assertThat(InstanceAgreement.inForce(List.of(key(CLAIM, "a"), key(CHANGE, "b"), key(CLAIM, "c")), TOKEN_KEY)).contains("b");
        assertThat(InstanceAgreement.inForce(List.of(key(CLAIM, "a"), key(CHANGE, "b"), key(CHANGE, "c")), TOKEN_KEY)).contains("c");
    }

    @Test
    void eachSettingHasItsOwnValueInForce() {
        List<String[]> records = List.of(key(CLAIM, "a"), InstanceAgreement.record(CLAIM, PROCESSING_GUARANTEE, "exactly_once_v2"),
                key(CHANGE, "b"), InstanceAgreement.record(CHANGE, PROCESSING_GUARANTEE, "at_least_once"));
        assertThat(InstanceAgreement.inForce(records, TOKEN_KEY)).contains("b");
        assertThat(InstanceAgreement.inForce(records, PROCESSING_GUARANTEE)).contains("at_least_once");
        assertThat(InstanceAgreement.inForce(records, "token")).as("a setting whose name prefixes another's").isEmpty();
    }

    @Test
    void aFingerprintTellsKeysApartAndShowsNothingOfTheKey() {
        byte[] key = "a token key of thirty-two bytes!".getBytes(UTF_8);
        String fingerprint = InstanceAgreement.fingerprint(key);
        assertThat(fingerprint).hasSize(16).isEqualTo(InstanceAgreement.fingerprint(key.clone()))
                .isNotEqualTo(InstanceAgreement.fingerprint("another key of thirty-two bytes!".getBytes(UTF_8)));
        assertThat(new String(key, UTF_8)).doesNotContain(fingerprint);
    }

    private static String[] key(String kind, String fingerprint) {
        return InstanceAgreement.record(kind, TOKEN_KEY, fingerprint);
    }
}
