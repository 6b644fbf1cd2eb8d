package dev.baton.morsel.kafka;

import java.util.ArrayList;
import java.util.List;

/** Offsets {@code [from, to)} of one partition of a topic: the unit a topic scan is split into. */
public record OffsetRange(String topic, int partition, long from, long to) {

    public OffsetRange {
        if (partition < 0 || from < 0 || to < from) {
            throw new IllegalArgumentException("an offset range needs partition >= 0 and 0 <= from <= to, was "
                    + topic + "-" + partition + " [" + from + ", " + to + ")");
        }
    }

    public long offsets() {
        return to - from;
    }

    /** This range cut into consecutive ranges of at most {@code maxOffsets}: the morsels of one split. */
    public List<OffsetRange> split(long maxOffsets) {
        if (maxOffsets < 1) {
            throw new IllegalArgumentException("maxOffsets must be >= 1, was " + maxOffsets);
        }
        List<OffsetRange> parts = new ArrayList<>();
        for (long f = from; f < to; ) {
            // compared by what is left, not by f + maxOffsets: that overflows for a large maxOffsets (Long.MAX_VALUE: a
            // partition whole) once the log no longer starts at 0 (retention, deleteRecords)
            long end = to - f <= maxOffsets ? to : f + maxOffsets;
            parts.add(new OffsetRange(topic, partition, f, end));
            f = end;
        }
        return parts;
    }

    /** {@code topic/partition/from/to}, also the form an engine node tags its exchange records with. */
    @Override
    public String toString() {
        return topic + "/" + partition + "/" + from + "/" + to;
    }

    /** Parses {@link #toString()}. */
    public static OffsetRange parse(String text) {
        int c = text.lastIndexOf('/');
        int b = text.lastIndexOf('/', c - 1);
        int a = text.lastIndexOf('/', b - 1);
        if (a <= 0) {
            throw new IllegalArgumentException("an offset range reads topic/partition/from/to, was '" + text + "'");
        }
        return new OffsetRange(text.substring(0, a), Integer.parseInt(text.substring(a + 1, b)),
                Long.parseLong(text.substring(b + 1, c)), Long.parseLong(text.substring(c + 1)));
    }
}
