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
 * each row group holds one page per column. Page {@code p} of the file is row group {@code p}: a
 * morsel is a range of row groups, and a worker reads whole column pages of it.
 *
 * <pre>
 * header (4096 bytes): "BTNPAGE1", version, nominal pageBytes (rows per page x 8), rowCount, columnCount,
 *                      column names, and from version 2 the directory's offset
 * version 1 body: for each row group, for each column: pageBytes bytes of little-endian longs
 * version 2 body: for each row group, for each column: [dictionary longs][values], 8-byte aligned,
 *                 in the page's {@link ColumnEncoding}; then the directory: per page and column
 *                 (encoding, dictionary size, offset, base)
 * </pre>
 *
 * Both versions are read: a version-1 page is a {@link ColumnEncoding#LONG} page. Thread-safe for
 * reads: pages are immutable views.
 */
public final class PageFile implements PageSource, AutoCloseable {

    static final byte[] MAGIC = "BTNPAGE1".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 2;
    static final int HEADER_BYTES = 4096;
    static final int DIRECTORY_ENTRY_BYTES = 24;

    private final Path path;
    private final int rowsPerPage;
    private final int pageBytes;
    private final long rowCount;
    private final List<String> columns;
    /** Every column page, indexed {@code page * columns + column}. */
    private final ColumnPage[] pages;

    private PageFile(Path path, int rowsPerPage, int pageBytes, long rowCount, List<String> columns, ColumnPage[] pages) {
        this.path = path;
        this.rowsPerPage = rowsPerPage;
        this.pageBytes = pageBytes;
        this.rowCount = rowCount;
        this.columns = List.copyOf(columns);
        this.pages = pages;
    }

    public static PageFile open(Path path) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(path + " is " + size + " bytes; one mapping holds at most 2 GiB");
            }
            if (size < HEADER_BYTES) {
                throw new IllegalArgumentException(path + " is " + size + " bytes, shorter than the " + HEADER_BYTES + "-byte header");
            }
            MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            ByteBuffer header = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            byte[] magic = new byte[MAGIC.length];
            header.get(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new IllegalArgumentException(path + " is not a Baton page file (bad magic)");
            }
            int version = header.getInt();
            if (version != 1 && version != VERSION) {
                throw new IllegalArgumentException(path + " has page file version " + version + ", this reader knows 1 and " + VERSION);
            }
            int nominalPageBytes = header.getInt();
            long rows = header.getLong();
            int columnCount = header.getInt();
            List<String> names = new ArrayList<>();
            for (int i = 0; i < columnCount; i++) {
                byte[] name = new byte[header.getShort()];
                header.get(name);
                names.add(new String(name, StandardCharsets.UTF_8));
            }
            int rowsPerPage = nominalPageBytes / Long.BYTES;
            int pageCount = (int) ((rows + rowsPerPage - 1) / rowsPerPage);
            if (version == 1) {
                return new PageFile(path, rowsPerPage, nominalPageBytes, rows, names,
                        widePages(buffer, pageCount, columnCount, nominalPageBytes, rowsPerPage, rows));
            }
            long directory = header.getLong();
            ColumnPage[] pages = narrowPages(path, buffer, directory, pageCount, columnCount, rowsPerPage, rows);
            long bodyBytes = directory - HEADER_BYTES;
            int averagePageBytes = (int) Math.max(64, bodyBytes / Math.max(1, (long) pageCount * columnCount));
            return new PageFile(path, rowsPerPage, averagePageBytes, rows, names, pages);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open page file " + path, e);
        }
    }

    private static ColumnPage[] widePages(ByteBuffer file, int pageCount, int columns, int pageBytes, int rowsPerPage, long rows) {
        ColumnPage[] pages = new ColumnPage[pageCount * columns];
        for (int p = 0; p < pageCount; p++) {
            int n = rowsIn(p, rowsPerPage, rows);
            for (int c = 0; c < columns; c++) {
                long offset = HEADER_BYTES + ((long) p * columns + c) * pageBytes;
                pages[p * columns + c] = new ColumnPage(ColumnEncoding.LONG, n, 0, file.slice((int) offset, pageBytes), null);
            }
        }
        return pages;
    }

    private static ColumnPage[] narrowPages(Path path, ByteBuffer file, long directory, int pageCount, int columns, int rowsPerPage, long rows) {
        long expectedEnd = directory + (long) pageCount * columns * DIRECTORY_ENTRY_BYTES;
        if (directory < HEADER_BYTES || expectedEnd > file.capacity()) {
            throw new IllegalArgumentException(path + " is truncated or corrupt: its page directory [" + directory + ", " + expectedEnd
                    + ") lies outside the file's " + file.capacity() + " bytes");
        }
        ByteBuffer dir = file.slice((int) directory, (int) (expectedEnd - directory)).order(ByteOrder.LITTLE_ENDIAN);
        ColumnEncoding[] encodings = ColumnEncoding.values();
        ColumnPage[] pages = new ColumnPage[pageCount * columns];
        for (int p = 0; p < pageCount; p++) {
            int n = rowsIn(p, rowsPerPage, rows);
            for (int c = 0; c < columns; c++) {
                int ordinal = dir.getInt();
                int dictionarySize = dir.getInt();
                long offset = dir.getLong();
                long base = dir.getLong();
                if (ordinal < 0 || ordinal >= encodings.length) {
                    throw new IllegalArgumentException(path + " page " + p + " column " + c + " has encoding " + ordinal
                            + "; known encodings are 0.." + (encodings.length - 1));
                }
                ColumnEncoding e = encodings[ordinal];
                long[] dictionary = null;
                if (e == ColumnEncoding.DICTIONARY) {
                    dictionary = new long[dictionarySize];
                    file.slice((int) offset, dictionarySize * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(dictionary);
                }
                int valuesAt = (int) (offset + (long) dictionarySize * Long.BYTES);
                pages[p * columns + c] = new ColumnPage(e, n, base, file.slice(valuesAt, n * e.bytesPerValue()), dictionary);
            }
        }
        return pages;
    }

    private static int rowsIn(int page, int rowsPerPage, long rows) {
        long start = (long) page * rowsPerPage;
        return (int) Math.min(rowsPerPage, rows - start);
    }

    @Override
    public int pageCount() {
        return pages.length / columns.size();
    }

    @Override
    public long rowCount() {
        return rowCount;
    }

    /** The average stored bytes of one column page (narrow pages are smaller than {@link #rowsPerPage()} x 8). */
    @Override
    public int pageBytes() {
        return pageBytes;
    }

    public int rowsPerPage() {
        return rowsPerPage;
    }

    /** Rows in page {@code page}: {@link #rowsPerPage()} except for the last page. */
    @Override
    public int rowsIn(int page) {
        return rowsIn(page, rowsPerPage, rowCount);
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

    /** One column page in its stored encoding: what operators read. */
    @Override
    public ColumnPage column(int page, int column) {
        return pages[page * columns.size() + column];
    }

    /** The union of the pages' bounds ({@link ColumnPage#lowerBound}, {@link ColumnPage#upperBound}); {@code null} when a page bounds nothing. */
    @Override
    public ValueRange valueRange(int column) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int p = 0, n = pageCount(); p < n; p++) {
            ColumnPage c = column(p, column);
            if (c.encoding() == ColumnEncoding.LONG) {
                return null;
            }
            min = Math.min(min, c.lowerBound());
            max = Math.max(max, c.upperBound());
        }
        return max < min ? null : new ValueRange(min, max);
    }

    /**
     * The values of one column in one page as 64-bit longs: a view of a version-1 or LONG page, a
     * widened copy of a narrow one. For tools; operators read {@link #column(int, int)}.
     */
    @Override
    public LongBuffer page(int page, int column) {
        ColumnPage c = column(page, column);
        if (c.encoding() == ColumnEncoding.LONG) {
            return c.data().duplicate().order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
        }
        return LongBuffer.wrap(c.toLongArray());
    }

    /** How many column pages use each encoding (for reports). */
    public int[] encodingCounts() {
        int[] counts = new int[ColumnEncoding.values().length];
        for (ColumnPage p : pages) {
            counts[p.encoding().ordinal()]++;
        }
        return counts;
    }

    @Override
    public void close() {
        // A mapping is released by the garbage collector; nothing to do explicitly on Java 17.
    }
}
