package dev.baton.image;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads a tar stream as Jib writes image tarballs and layers: ustar headers, PAX extended headers
 * ({@code path=} overrides the next entry's name), GNU long names. Enough for a test to look inside an
 * image without a tar library.
 */
final class Tar {

    static final char FILE = '0';
    static final char DIRECTORY = '5';

    private static final int BLOCK = 512;

    /** What to do with each entry; {@code data} is the entry's content, to be read before the next. */
    interface Visitor {
        void entry(String name, char type, InputStream data) throws IOException;
    }

    private Tar() {
    }

    static void read(InputStream in, Visitor visitor) throws IOException {
        String nextName = null;
        byte[] header = new byte[BLOCK];
        while (readBlock(in, header)) {
            if (isZero(header)) {
                return;
            }
            String name = string(header, 0, 100);
            String prefix = string(header, 345, 155);
            if (!prefix.isEmpty()) {
                name = prefix + "/" + name;
            }
            long size = octal(header, 124, 12);
            char type = header[156] == 0 ? FILE : (char) header[156];
            byte[] data = in.readNBytes(Math.toIntExact(size));
            if (data.length != size) {
                throw new EOFException("tar entry " + name + " is cut short");
            }
            in.readNBytes((int) ((BLOCK - size % BLOCK) % BLOCK)); // read, not skipped: a digest of the stream must see it
            switch (type) {
                case 'x' -> nextName = paxPath(data, nextName);
                case 'L' -> nextName = new String(data, StandardCharsets.UTF_8).replace("\0", "");
                case 'g' -> { }
                default -> {
                    visitor.entry(nextName != null ? nextName : name, type == '7' ? FILE : type, new ByteArrayInputStream(data));
                    nextName = null;
                }
            }
        }
    }

    /** The {@code path} of PAX records ({@code "<length> <key>=<value>\n"}, the length in bytes and counting itself). */
    private static String paxPath(byte[] records, String otherwise) {
        String path = otherwise;
        int at = 0;
        while (at < records.length) {
            int space = at;
            while (records[space] != ' ') {
                space++;
            }
            int length = Integer.parseInt(new String(records, at, space - at, StandardCharsets.US_ASCII));
            String record = new String(records, space + 1, at + length - space - 2, StandardCharsets.UTF_8);
            if (record.startsWith("path=")) {
                path = record.substring("path=".length());
            }
            at += length;
        }
        return path;
    }

    private static boolean readBlock(InputStream in, byte[] block) throws IOException {
        int n = in.readNBytes(block, 0, BLOCK);
        if (n == 0) {
            return false;
        }
        if (n != BLOCK) {
            throw new EOFException("a tar header is cut short");
        }
        return true;
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static String string(byte[] b, int offset, int length) {
        int end = offset;
        while (end < offset + length && b[end] != 0) {
            end++;
        }
        return new String(b, offset, end - offset, StandardCharsets.UTF_8);
    }

    private static long octal(byte[] b, int offset, int length) {
        String s = string(b, offset, length).strip();
        return s.isEmpty() ? 0 : Long.parseLong(s, 8);
    }
}
