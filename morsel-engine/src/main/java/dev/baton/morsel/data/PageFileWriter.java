package dev.baton.morsel.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Writes a {@link PageFile} (format version 2) row by row. Rows are buffered one row group at a
 * time; each column page of the group is stored in its narrowest encoding ({@link ColumnEncoding}).
 * The file is written to a temporary name and moved into place on {@link #close()}, so a reader
 * never sees a half-written file. Not thread-safe.
 */
public final class PageFileWriter implements AutoCloseable {

    private final Path target;
    private final Path temp;
    private final FileChannel channel;
    private final int pageBytes;
    private final int rowsPerPage;
    private final long[][] group;
    private final PageEncoder encoder;
    private final List<String> columns;
    private ByteBuffer directory;
    private int rowsInGroup;
    private long rows;
    private long position = PageFile.HEADER_BYTES;

    /**
     * @param pageBytes a row group holds {@code pageBytes / 8} rows: one page of 64-bit values, or
     *                  fewer bytes when a column's page is stored narrower
     */
    public PageFileWriter(Path target, List<String> columns, int pageBytes) {
        if (pageBytes < 64 || pageBytes % Long.BYTES != 0) {
            throw new IllegalArgumentException("pageBytes must be a multiple of 8 and >= 64, was " + pageBytes);
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a page file needs at least one column");
        }
        this.target = target;
        this.temp = target.resolveSibling(target.getFileName() + ".tmp");
        this.columns = List.copyOf(columns);
        this.pageBytes = pageBytes;
        this.rowsPerPage = pageBytes / Long.BYTES;
        this.group = new long[columns.size()][rowsPerPage];
        this.encoder = new PageEncoder(rowsPerPage);
        this.directory = ByteBuffer.allocate(PageFile.DIRECTORY_ENTRY_BYTES * columns.size() * 64).order(ByteOrder.LITTLE_ENDIAN);
        try {
            this.channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + temp, e);
        }
    }

    /** Appends one row; {@code values.length} must equal the column count. */
    public void append(long... values) {
        if (values.length != group.length) {
            throw new IllegalArgumentException("a row needs " + group.length + " values, got " + values.length);
        }
        for (int c = 0; c < values.length; c++) {
            group[c][rowsInGroup] = values[c];
        }
        rows++;
        if (++rowsInGroup == rowsPerPage) {
            flushGroup();
        }
    }

    private void flushGroup() {
        for (long[] column : group) {
            PageEncoder.Encoded e = encoder.encode(column, rowsInGroup);
            long[] dict = e.dictionary() == null ? new long[0] : e.dictionary();
            long payload = position;
            write(dictionaryBytes(dict));
            write(encoder.buffer().duplicate().position(0).limit(e.bytes()));
            pad();
            entry(e.encoding(), dict.length, payload, e.base());
        }
        rowsInGroup = 0;
    }

    private static ByteBuffer dictionaryBytes(long[] dict) {
        ByteBuffer b = ByteBuffer.allocate(dict.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : dict) {
            b.putLong(v);
        }
        return b.flip();
    }

    /** Keeps every page 8-byte aligned, so a long page reads aligned words. */
    private void pad() {
        int extra = (int) (position % Long.BYTES);
        if (extra != 0) {
            write(ByteBuffer.allocate(Long.BYTES - extra));
        }
    }

    private void entry(ColumnEncoding encoding, int dictionarySize, long offset, long base) {
        if (directory.remaining() < PageFile.DIRECTORY_ENTRY_BYTES) {
            ByteBuffer bigger = ByteBuffer.allocate(directory.capacity() * 2).order(ByteOrder.LITTLE_ENDIAN);
            directory = bigger.put(directory.flip());
        }
        directory.putInt(encoding.ordinal()).putInt(dictionarySize).putLong(offset).putLong(base);
    }

    private void write(ByteBuffer b) {
        try {
            while (b.hasRemaining()) {
                position += channel.write(b, position);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + temp, e);
        }
    }

    @Override
    public void close() {
        if (rowsInGroup > 0) {
            flushGroup();
        }
        long directoryOffset = position;
        write(directory.flip());
        ByteBuffer header = ByteBuffer.allocate(PageFile.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        header.put(PageFile.MAGIC).putInt(PageFile.VERSION).putInt(pageBytes).putLong(rows).putInt(columns.size());
        for (String c : columns) {
            byte[] name = c.getBytes(StandardCharsets.UTF_8);
            if (header.remaining() < name.length + 2 + Long.BYTES) {
                throw new IllegalArgumentException("column names must fit the " + PageFile.HEADER_BYTES + "-byte header; "
                        + columns.size() + " columns do not");
            }
            header.putShort((short) name.length).put(name);
        }
        header.putLong(directoryOffset);
        try {
            header.position(0);
            channel.write(header, 0);
            channel.force(true);
            channel.close();
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot finish " + target, e);
        }
    }
}
