package dev.baton.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/** A site's secret is HMAC-SHA256(token key, site key ‖ partition ‖ offset) cut to 128 bits, whichever keys came before. */
class CompletionTokenProperties {

    @Property(tries = 500)
    void shouldSignEachSiteWithTheKeyItIsGiven(@ForAll @Size(min = 1, max = 4) List<@Size(min = 1, max = 64) byte[]> keys,
                                                @ForAll byte[] site, @ForAll int partition, @ForAll long offset) throws Exception {
        for (byte[] key : keys) { // one key after another on this thread, each used twice, the second time as a copy
            assertThat(CompletionToken.siteSecret(key, site, partition, offset)).isEqualTo(reference(key, site, partition, offset));
            assertThat(CompletionToken.siteSecret(key.clone(), site, partition, offset)).isEqualTo(reference(key, site, partition, offset));
        }
    }

    private static byte[] reference(byte[] key, byte[] site, int partition, long offset) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        mac.update(site);
        return Arrays.copyOf(mac.doFinal(ByteBuffer.allocate(12).putInt(partition).putLong(offset).array()), CompletionToken.BYTES);
    }
}
