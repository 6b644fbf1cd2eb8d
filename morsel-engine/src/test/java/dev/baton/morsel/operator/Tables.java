package dev.baton.morsel.operator;

import java.nio.file.Path;
import java.util.List;

import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.data.PageFileWriter;

/** Small page files for operator tests. */
final class Tables {

    private Tables() {
    }

    /** Writes {@code rows} (one {@code long[]} per row), with 64-row pages unless told and opens the file. */
    static PageFile write(Path dir, String name, List<String> columns, long[][] rows) {
        return write(dir, name, columns, rows, 512);
    }

    static PageFile write(Path dir, String name, List<String> columns, long[][] rows, int pageBytes) {
        Path file = dir.resolve(name + ".btn");
        try (PageFileWriter w = new PageFileWriter(file, columns, pageBytes)) {
            for (long[] row : rows) {
                w.append(row);
            }
        }
        return PageFile.open(file);
    }

    /** Every page of {@code source} as one batch at a time, after {@code stages}: the rows each page keeps. */
    static int[][] survivors(PageFile source, Stage... stages) {
        int[][] kept = new int[source.pageCount()][];
        Batch b = new Batch(source, 4);
        for (int p = 0; p < source.pageCount(); p++) {
            b.reset(p);
            for (Stage s : stages) {
                s.apply(b);
            }
            kept[p] = java.util.Arrays.copyOf(b.selection(), b.selected());
        }
        return kept;
    }
}
