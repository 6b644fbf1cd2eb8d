package dev.baton.testkit.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A growth curve of the scale soak: at each sample, the activities dispatched, a count (the sites the
 * streams app has taken in, the futures a client holds), a heap after a full GC and a directory's
 * size. Prints as a table with the peaks. Thread-safe.
 */
public final class ScaleCurve {

    /** One sample; a figure that could not be measured (or is not measured) is -1. */
    public record Sample(double seconds, long dispatched, long count, long heapBytes, long rssBytes, long dirBytes) {
    }

    private final String countLabel;
    private final String dirLabel;
    private final List<Sample> samples = new ArrayList<>();

    /** @param countLabel what {@link Sample#count()} counts; @param dirLabel whose size {@link Sample#dirBytes()} is, null for none */
    public ScaleCurve(String countLabel, String dirLabel) {
        this.countLabel = countLabel;
        this.dirLabel = dirLabel;
    }

    public synchronized void add(Sample s) {
        samples.add(s);
    }

    public synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** The largest heap seen, in bytes (-1 if none was measured). */
    public synchronized long peakHeap() {
        return samples.stream().mapToLong(Sample::heapBytes).max().orElse(-1);
    }

    public synchronized long peakDir() {
        return samples.stream().mapToLong(Sample::dirBytes).max().orElse(-1);
    }

    /** The table: a header, a line per sample, and the peaks against {@code maxHeap} (the -Xmx, as given to the JVM). */
    public synchronized List<String> lines(String maxHeap) {
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "%8s  %10s  %15s  %14s  %14s%s", "t (s)", "dispatched", countLabel, "heap after GC", "process RSS",
                dirLabel == null ? "" : String.format(Locale.ROOT, "  %14s", dirLabel)));
        for (Sample s : samples) {
            out.add(String.format(Locale.ROOT, "%8.1f  %10d  %15d  %14s  %14s%s", s.seconds(), s.dispatched(), s.count(), mib(s.heapBytes()),
                    mib(s.rssBytes()), dirLabel == null ? "" : String.format(Locale.ROOT, "  %14s", mib(s.dirBytes()))));
        }
        out.add(String.format(Locale.ROOT, "peak heap after GC %s of -Xmx%s; peak RSS %s", mib(peakHeap()), maxHeap,
                mib(samples.stream().mapToLong(Sample::rssBytes).max().orElse(-1)))
                + (dirLabel == null ? "" : "; peak " + dirLabel + " " + mib(peakDir())));
        return out;
    }

    /** {@code bytes} as "12.3 MiB"; "n/a" for -1 (not measured). */
    public static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }

}
