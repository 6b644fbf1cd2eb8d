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
 * Writes a {@link PageFile} row by row. Rows are buffered one row group at a time; the file is
 * written to a temporary name and moved into place on {@link #close()}, so a reader never sees a
 * half-written file.
 */
public final class PageFileWriter implements AutoCloseable {

    private final Path target;
    private final Path temp;
    private final FileChannel channel;
    private final int pageBytes;
    private final int rowsPerPage;
    private final long[][] group;
    private final ByteBuffer out;
    private final List<String> columns;
    private int rowsInGroup;
    private long rows;

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
        this.out = ByteBuffer.allocate(pageBytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            this.channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
            channel.position(PageFile.HEADER_BYTES);
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
        try {
            for (long[] column : group) {
                out.clear();
                for (int i = 0; i < rowsPerPage; i++) {
                    out.putLong(i < rowsInGroup ? column[i] : 0L);
                }
                out.flip();
                while (out.hasRemaining()) {
                    channel.write(out);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + temp, e);
        }
        rowsInGroup = 0;
    }

    @Override
    public void close() {
        try {
            if (rowsInGroup > 0) {
                flushGroup();
            }
            ByteBuffer header = ByteBuffer.allocate(PageFile.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            header.put(PageFile.MAGIC).putInt(PageFile.VERSION).putInt(pageBytes).putLong(rows).putInt(columns.size());
            for (String c : columns) {
                byte[] name = c.getBytes(StandardCharsets.UTF_8);
                header.putShort((short) name.length).put(name);
            }
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
