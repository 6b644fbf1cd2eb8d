package dev.baton.morsel.morsel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Partitions page intervals into morsels: fixed-size, or sized to half of the L2 cache. */
public final class Morsels {

    /** L2 size assumed when the machine does not say. */
    public static final long DEFAULT_L2_BYTES = 1L << 20;

    private Morsels() {
    }

    /**
     * Splits {@code [startPage, endPage)} into morsels of {@code pagesPerMorsel} pages (the last may be
     * shorter), with preferred NUMA nodes assigned round-robin.
     */
    public static List<Morsel> partition(int startPage, int endPage, int pagesPerMorsel, int numaNodes) {
        if (startPage < 0 || endPage < startPage) {
            throw new IllegalArgumentException("page interval must satisfy 0 <= start <= end, was [" + startPage + ", " + endPage + ")");
        }
        if (pagesPerMorsel < 1) {
            throw new IllegalArgumentException("pagesPerMorsel must be >= 1, was " + pagesPerMorsel);
        }
        if (numaNodes < 1) {
            throw new IllegalArgumentException("numaNodes must be >= 1, was " + numaNodes);
        }
        List<Morsel> morsels = new ArrayList<>();
        for (int start = startPage, id = 0; start < endPage; start += pagesPerMorsel, id++) {
            morsels.add(new Morsel(id, start, Math.min(endPage, start + pagesPerMorsel), id % numaNodes));
        }
        return morsels;
    }

    /**
     * Pages per morsel so the working morsel fills half of L2 (the other half is for operator state):
     * {@code max(1, l2Bytes / 2 / pageBytes)}. 1 MiB of L2 and 4 KiB pages give 128.
     */
    public static int autoTunedPagesPerMorsel(long l2Bytes, int pageBytes) {
        if (l2Bytes < 1) {
            throw new IllegalArgumentException("l2Bytes must be >= 1, was " + l2Bytes);
        }
        if (pageBytes < 1) {
            throw new IllegalArgumentException("pageBytes must be >= 1, was " + pageBytes);
        }
        return (int) Math.max(1, l2Bytes / 2 / pageBytes);
    }

    /**
     * Morsels over {@code [0, pageCount)} of at most {@code pagesPerMorsel} pages, smaller where that leaves fewer than
     * {@link #MIN_MORSELS_PER_WORKER} per worker (never below one page).
     */
    public static List<Morsel> forWorkers(int pageCount, int pagesPerMorsel, int workers, int numaNodes) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1, was " + workers);
        }
        if (pagesPerMorsel < 1) {
            throw new IllegalArgumentException("pagesPerMorsel must be >= 1, was " + pagesPerMorsel);
        }
        int pages = Math.max(1, Math.min(pagesPerMorsel, pageCount / (MIN_MORSELS_PER_WORKER * workers)));
        return partition(0, pageCount, pages, numaNodes);
    }

    /*
     * Why a floor on the count and not only a size: the last morsels decide when a pipeline ends. Half of L2 is 67 pages
     * of lineitem at SF 1, 11 morsels in all, and two workers can split 11 no better than 6 to 5: the busier one then
     * carries 55% of the work, a 1.83x ceiling before any other cost, and a worker that starts late cannot be caught up
     * by less than a whole morsel. A morsel is a loop over pages (each page one batch), so a smaller one costs only its
     * take from the deque; the batch is the unit that must fit the cache, not the morsel.
     */
    /** The fewest morsels per worker {@link #forWorkers} aims for: a pipeline ends at most one small morsel apart. */
    public static final int MIN_MORSELS_PER_WORKER = 16;

    public static List<Morsel> autoTuned(int startPage, int endPage, int pageBytes, int numaNodes) {
        return partition(startPage, endPage, autoTunedPagesPerMorsel(l2Bytes(), pageBytes), numaNodes);
    }

    /** The L2 size of cpu0 from sysfs (the cache index whose level is 2), or {@link #DEFAULT_L2_BYTES}. */
    public static long l2Bytes() {
        return l2Bytes(Path.of("/sys/devices/system/cpu/cpu0/cache"));
    }

    static long l2Bytes(Path cacheDir) {
        if (!Files.isDirectory(cacheDir)) {
            return DEFAULT_L2_BYTES;
        }
        try (Stream<Path> indexes = Files.list(cacheDir)) {
            for (Path index : indexes.filter(p -> p.getFileName().toString().startsWith("index")).sorted().toList()) {
                if ("2".equals(read(index.resolve("level")))) {
                    return parseSize(read(index.resolve("size")));
                }
            }
        } catch (IOException | RuntimeException e) {
            return DEFAULT_L2_BYTES;
        }
        return DEFAULT_L2_BYTES;
    }

    /** Parses sysfs cache sizes such as {@code 2048K} or {@code 1M}. */
    static long parseSize(String text) {
        String t = text.trim().toUpperCase();
        long unit = t.endsWith("K") ? 1024 : t.endsWith("M") ? 1024 * 1024 : 1;
        String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
        return Long.parseLong(digits) * unit;
    }

    private static String read(Path p) throws IOException {
        return Files.exists(p) ? Files.readString(p).trim() : "";
    }
}
