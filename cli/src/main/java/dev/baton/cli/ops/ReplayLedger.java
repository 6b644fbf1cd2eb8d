package dev.baton.cli.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Which offsets of one {@code baton.dlq} partition were replayed: kept as the metadata string of the
 * replay group's committed offset ({@value #PREFIX}{@code 3-7,12}), written in the same transaction
 * as the replayed records, so a replay and its record in the ledger happen together or not at all.
 * Immutable.
 */
final class ReplayLedger {

    static final String PREFIX = "replayed:";

    /** Kafka's default offset.metadata.max.bytes is 4096; stay under it with room to spare. */
    static final int MAX_ENCODED = 3_500;

    private final NavigableSet<Long> offsets;

    private ReplayLedger(NavigableSet<Long> offsets) {
        this.offsets = offsets;
    }

    static ReplayLedger empty() {
        return new ReplayLedger(new TreeSet<>());
    }

    /**
     * Reads a metadata string; null or empty is the empty ledger.
     *
     * @throws IllegalArgumentException if it is not a ledger this command wrote
     */
    static ReplayLedger decode(String metadata) {
        TreeSet<Long> out = new TreeSet<>();
        if (metadata == null || metadata.isEmpty()) {
            return new ReplayLedger(out);
        }
        if (!metadata.startsWith(PREFIX)) {
            throw new IllegalArgumentException("the replay group's offset metadata must start with '" + PREFIX + "', was '" + metadata + "'");
        }
        String body = metadata.substring(PREFIX.length());
        if (body.isEmpty()) {
            return new ReplayLedger(out);
        }
        for (String range : body.split(",")) {
            int dash = range.indexOf('-');
            long from = Long.parseLong(dash < 0 ? range : range.substring(0, dash));
            long to = dash < 0 ? from : Long.parseLong(range.substring(dash + 1));
            if (to < from) {
                throw new IllegalArgumentException("a ledger range must not run backwards, was '" + range + "'");
            }
            for (long o = from; o <= to; o++) {
                out.add(o);
            }
        }
        return new ReplayLedger(out);
    }

    boolean contains(long offset) {
        return offsets.contains(offset);
    }

    boolean isEmpty() {
        return offsets.isEmpty();
    }

    /** The offset to commit with the ledger: one past the highest replayed. */
    long next() {
        return offsets.isEmpty() ? 0 : offsets.last() + 1;
    }

    ReplayLedger with(List<Long> replayed) {
        TreeSet<Long> out = new TreeSet<>(offsets);
        out.addAll(replayed);
        return new ReplayLedger(out);
    }

    /**
     * The metadata string, consecutive offsets as ranges.
     *
     * @throws IllegalStateException if it would exceed {@link #MAX_ENCODED} characters
     */
    String encode() {
        List<String> ranges = new ArrayList<>();
        Long start = null;
        Long last = null;
        for (long o : offsets) {
            if (start != null && o == last + 1) {
                last = o;
                continue;
            }
            if (start != null) {
                ranges.add(start.equals(last) ? start.toString() : start + "-" + last);
            }
            start = o;
            last = o;
        }
        if (start != null) {
            ranges.add(start.equals(last) ? start.toString() : start + "-" + last);
        }
        String out = PREFIX + String.join(",", ranges);
        if (out.length() > MAX_ENCODED) {
            throw new IllegalStateException("the replay ledger of this partition would take " + out.length() + " characters, more than "
                    + MAX_ENCODED + ": replay the dead letters between the replayed ranges first (--all), so the ranges merge");
        }
        return out;
    }
}
