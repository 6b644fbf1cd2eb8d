package dev.baton.morsel.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A memory-mapped columnar page file. Rows are stored in row groups of {@link #rowsPerPage()} rows;
 * each row group holds one page per column, and every page is {@link #pageBytes()} bytes of
 * little-endian 64-bit values. Page {@code p} of the file is row group {@code p}: a morsel is a range
 * of row groups, and a worker reads whole column pages of it.
 *
 * <pre>
 * header (4096 bytes): "BTNPAGE1", version, pageBytes, rowCount, columnCount, column names
 * body: for each row group g, for each column c: pageBytes bytes (the last group zero-padded)
 * </pre>
 *
 * Thread-safe for reads: every accessor returns a fresh view.
 */
public final class PageFile implements PageSource, AutoCloseable {

    static final byte[] MAGIC = "BTNPAGE1".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 1;
    static final int HEADER_BYTES = 4096;

    private final Path path;
    private final MappedByteBuffer buffer;
    private final int pageBytes;
    private final long rowCount;
    private final List<String> columns;

    private PageFile(Path path, MappedByteBuffer buffer, int pageBytes, long rowCount, List<String> columns) {
        this.path = path;
        this.buffer = buffer;
        this.pageBytes = pageBytes;
        this.rowCount = rowCount;
        this.columns = List.copyOf(columns);
    }

    public static PageFile open(Path path) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(path + " is " + size + " bytes; one mapping holds at most 2 GiB");
            }
            MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            buffer.order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer header = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            byte[] magic = new byte[MAGIC.length];
            header.get(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new IllegalArgumentException(path + " is not a Baton page file (bad magic)");
            }
            int version = header.getInt();
            if (version != VERSION) {
                throw new IllegalArgumentException(path + " has page file version " + version + ", this reader knows " + VERSION);
            }
            int pageBytes = header.getInt();
            long rows = header.getLong();
            int columnCount = header.getInt();
            List<String> names = new ArrayList<>();
            for (int i = 0; i < columnCount; i++) {
                byte[] name = new byte[header.getShort()];
                header.get(name);
                names.add(new String(name, StandardCharsets.UTF_8));
            }
            return new PageFile(path, buffer, pageBytes, rows, names);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open page file " + path, e);
        }
    }

    @Override
    public int pageCount() {
        return (int) ((rowCount + rowsPerPage() - 1) / rowsPerPage());
    }

    @Override
    public long rowCount() {
        return rowCount;
    }

    @Override
    public int pageBytes() {
        return pageBytes;
    }

    public int rowsPerPage() {
        return pageBytes / Long.BYTES;
    }

    /** Rows in page {@code page}: {@link #rowsPerPage()} except for the last page. */
    @Override
    public int rowsIn(int page) {
        long start = (long) page * rowsPerPage();
        return (int) Math.min(rowsPerPage(), rowCount - start);
    }

    @Override
    public List<String> columns() {
        return columns;
    }

    public int column(String name) {
        int i = columns.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("no column '" + name + "' in " + path + "; columns are " + columns);
        }
        return i;
    }

    /** The values of one column in one page, as a read-only view. */
    @Override
    public LongBuffer page(int page, int column) {
        long offset = HEADER_BYTES + ((long) page * columns.size() + column) * pageBytes;
        return buffer.slice((int) offset, pageBytes).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
    }

    @Override
    public void close() {
        // A mapping is released by the garbage collector; nothing to do explicitly on Java 17.
    }
}
