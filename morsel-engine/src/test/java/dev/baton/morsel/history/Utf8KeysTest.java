package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** {@link Utf8Keys} says well-formed exactly where Java's UTF-8 decoder decodes without replacing anything. */
class Utf8KeysTest {

    @Property(tries = 3000)
    void shouldCallWellFormedWhatJavasDecoderDecodesWithoutReplacing(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] key = randomKey(random);
        int before = random.nextInt(9);
        byte[] framed = new byte[before + key.length + random.nextInt(9)];
        for (int i = 0; i < framed.length; i++) {
            framed[i] = (byte) random.nextInt(); // bytes around the key that are not its own
        }
        System.arraycopy(key, 0, framed, before, key.length);
        ByteBuffer view = ByteBuffer.wrap(framed, before, key.length).slice();
        assertThat(Utf8Keys.wellFormed(view)).as("key %s", java.util.Arrays.toString(key)).isEqualTo(decodes(key));
        assertThat(view.position()).isZero();
    }

    @Test
    void shouldTellTheAdversarysTwoKeysThatDecodeAlikeFromAWellFormedOne() {
        assertThat(new String(new byte[] {(byte) 0xff}, StandardCharsets.UTF_8)).isEqualTo(new String(new byte[] {(byte) 0xfe}, StandardCharsets.UTF_8));
        assertThat(Utf8Keys.wellFormed(ByteBuffer.wrap(new byte[] {(byte) 0xff}))).isFalse();
        assertThat(Utf8Keys.wellFormed(ByteBuffer.wrap(new byte[] {(byte) 0xfe}))).isFalse();
        assertThat(Utf8Keys.wellFormed(ByteBuffer.wrap("main/wf-1/1".getBytes(StandardCharsets.UTF_8)))).isTrue();
        assertThat(Utf8Keys.wellFormed(ByteBuffer.wrap("ns/wf-\uFFFD-\uD83D\uDE00/1".getBytes(StandardCharsets.UTF_8)))).isTrue();
        assertThat(Utf8Keys.wellFormed(ByteBuffer.allocateDirect(3).put(new byte[] {'a', (byte) 0xc0, (byte) 0x80}).flip())).isFalse();
        assertThat(Utf8Keys.wellFormed(null)).isTrue();
    }

    private static boolean decodes(byte[] key) {
        try {
            CharBuffer ignored = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(key)); // reports, does not replace
            return ignored != null;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** ASCII runs, well-formed characters of every length, and now and then a byte that breaks a sequence. */
    private static byte[] randomKey(SplittableRandom random) {
        StringBuilder s = new StringBuilder();
        for (int n = random.nextInt(30); n > 0; n--) {
            int kind = random.nextInt(6);
            s.appendCodePoint(kind < 3 ? 'a' + random.nextInt(26) : kind == 3 ? 0x80 + random.nextInt(0x780)
                    : kind == 4 ? 0x800 + random.nextInt(0xd000) : 0x10000 + random.nextInt(0x100000));
        }
        byte[] b = s.toString().getBytes(StandardCharsets.UTF_8);
        if (b.length > 0 && random.nextInt(3) == 0) {
            int at = random.nextInt(b.length);
            b[at] = random.nextBoolean() ? (byte) (0x80 + random.nextInt(0x80)) : (byte) random.nextInt(256);
        }
        if (b.length > 0 && random.nextInt(6) == 0) {
            b = java.util.Arrays.copyOf(b, random.nextInt(b.length)); // a sequence cut short
        }
        return b;
    }
}
