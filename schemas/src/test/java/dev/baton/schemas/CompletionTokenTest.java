package dev.baton.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;

class CompletionTokenTest {

    private final byte[] siteKey = "ns/wf/a".getBytes(StandardCharsets.UTF_8);

    @Test
    void shouldDeriveTheSiteSecretAsTheHmacOfSiteKeyPartitionAndOffset() throws Exception {
        byte[] key = "token-key-one".getBytes(StandardCharsets.UTF_8);
        for (long offset = 0; offset < 3; offset++) {
            assertThat(CompletionToken.siteSecret(key, siteKey, 2, offset)).as("offset %d", offset).isEqualTo(hmac(key, 2, offset));
        }
    }

    @Test
    void shouldUseTheKeyItIsGivenWhenTheKeyChanges() throws Exception {
        byte[] one = "token-key-one".getBytes(StandardCharsets.UTF_8);
        byte[] two = "token-key-two".getBytes(StandardCharsets.UTF_8);
        CompletionToken.siteSecret(one, siteKey, 0, 7);
        assertThat(CompletionToken.siteSecret(two, siteKey, 0, 7)).isEqualTo(hmac(two, 0, 7));
        byte[] reused = one.clone();
        CompletionToken.siteSecret(reused, siteKey, 0, 7);
        reused[0] ^= 1; // a caller changing its array after the call changes the key
        assertThat(CompletionToken.siteSecret(reused, siteKey, 0, 7)).isEqualTo(hmac(reused, 0, 7));
    }

    private byte[] hmac(byte[] key, int partition, long offset) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        mac.update(siteKey);
        return Arrays.copyOf(mac.doFinal(ByteBuffer.allocate(12).putInt(partition).putLong(offset).array()), CompletionToken.BYTES);
    }
}
