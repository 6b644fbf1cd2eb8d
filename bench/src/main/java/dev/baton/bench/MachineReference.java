package dev.baton.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How fast this machine runs two fixed pieces of work: sorting a million longs (compute) and a
 * one-byte write to /dev/null (a system call). Benchmark figures are only comparable between runs
 * whose reference figures are close: the same code on the same kind of machine once ran at a third
 * of its usual rate, with no other process busy, because the virtual machine itself was slower —
 * which the "noise" line (other processes' CPU) cannot see.
 */
final class MachineReference {

    private static final int SORTED = 1_000_000;
    private static final int WRITES = 100_000;
    /** The best of several tries: the first ones run before the JIT has compiled the loops. */
    private static final int TRIES = 7;

    /** The reference figures: milliseconds per sort, microseconds per write. */
    record Figures(double sortMillis, double writeMicros) {
        String describe() {
            String write = Double.isNaN(writeMicros) ? "n/a (no /dev/null)" : String.format(Locale.ROOT, "%.2f us", writeMicros);
            return String.format(Locale.ROOT, "sort of 1M longs %.0f ms, 1-byte write to /dev/null %s", sortMillis, write);
        }
    }

    private MachineReference() {
    }

    static Figures measure() {
        double sort = Double.MAX_VALUE;
        double write = Double.MAX_VALUE;
        for (int i = 0; i < TRIES; i++) {
            sort = Math.min(sort, sortNanos() / 1e6);
            long nanos = writeNanos();
            write = nanos < 0 ? Double.NaN : Math.min(write, nanos / 1e3 / WRITES);
        }
        return new Figures(sort, write);
    }

    private static long sortNanos() {
        long[] values = new SplittableRandom(42).longs(SORTED).toArray();
        long start = System.nanoTime();
        Arrays.sort(values);
        long nanos = System.nanoTime() - start;
        if (values[0] > values[SORTED - 1]) {
            throw new AssertionError("not sorted"); // keeps the sort from being optimised away
        }
        return nanos;
    }

    private static long writeNanos() {
        ByteBuffer one = ByteBuffer.allocateDirect(1);
        try (FileChannel devNull = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE)) {
            long start = System.nanoTime();
            for (int i = 0; i < WRITES; i++) {
                one.clear();
                devNull.write(one);
            }
            return System.nanoTime() - start;
        } catch (IOException e) {
            return -1; // no /dev/null here: the figure is reported as not available
        }
    }
}
