package dev.baton.morsel.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PageFileCompatibilityTest {

    @TempDir
    Path dir;

    /** Writes a version-1 file (64-bit pages, zero-padded last page) the way the old writer did. */
    private Path versionOne(long[][] rows, int pageBytes) throws IOException {
        int rowsPerPage = pageBytes / 8;
        int pages = (rows.length + rowsPerPage - 1) / rowsPerPage;
        int columns = rows[0].length;
        ByteBuffer b = ByteBuffer.allocate(PageFile.HEADER_BYTES + pages * columns * pageBytes).order(ByteOrder.LITTLE_ENDIAN);
        b.put(PageFile.MAGIC).putInt(1).putInt(pageBytes).putLong(rows.length).putInt(columns);
        for (int c = 0; c < columns; c++) {
            byte[] name = ("c" + c).getBytes(StandardCharsets.UTF_8);
            b.putShort((short) name.length).put(name);
        }
        for (int p = 0; p < pages; p++) {
            for (int c = 0; c < columns; c++) {
                for (int i = 0; i < rowsPerPage; i++) {
                    int row = p * rowsPerPage + i;
                    b.putLong(PageFile.HEADER_BYTES + ((p * columns + c) * pageBytes) + i * 8, row < rows.length ? rows[row][c] : 0);
                }
            }
        }
        Path file = dir.resolve("v1.btn");
        Files.write(file, b.array());
        return file;
    }

    @Test
    void shouldReadAVersionOneFileAsLongPages() throws IOException {
        long[][] rows = new long[100][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new long[] {i, -i * 1_000_000_007L};
        }
        try (PageFile f = PageFile.open(versionOne(rows, 64))) {
            assertThat(f.columns()).containsExactly("c0", "c1");
            assertThat(f.pageCount()).isEqualTo(13);
            assertThat(f.rowsIn(12)).isEqualTo(4);
            assertThat(f.column(12, 1).encoding()).isEqualTo(ColumnEncoding.LONG);
            assertThat(f.column(12, 1).get(3)).isEqualTo(-99 * 1_000_000_007L);
            assertThat(f.page(5, 0).get(2)).isEqualTo(42);
        }
    }

    @Test
    void shouldRefuseADirectoryOutsideTheFileNamingItsRange() throws IOException {
        Path file = dir.resolve("t.btn");
        try (PageFileWriter w = new PageFileWriter(file, List.of("a"), 64)) {
            for (int i = 0; i < 20; i++) {
                w.append(i);
            }
        }
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 10));
        assertThatThrownBy(() -> PageFile.open(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated or corrupt").hasMessageContaining("page directory");
    }

    @Test
    void shouldStoreTheTpchLikeColumnsNarrowerThanLongs() throws IOException {
        Path file = dir.resolve("n.btn");
        try (PageFileWriter w = new PageFileWriter(file, List.of("quantity", "discount", "date"), 8192)) {
            for (int i = 0; i < 10_000; i++) {
                w.append((1 + i % 50) * 100L, i % 11, 8000 + i % 2500);
            }
        }
        try (PageFile f = PageFile.open(file)) {
            assertThat(f.column(0, 0).encoding()).isEqualTo(ColumnEncoding.DICTIONARY);
            assertThat(f.column(0, 1).encoding()).isEqualTo(ColumnEncoding.BYTE);
            assertThat(f.column(0, 2).encoding()).isEqualTo(ColumnEncoding.SHORT);
            assertThat(Files.size(file)).isLessThan(10_000L * 3 * 8 / 4);
        }
    }
}
