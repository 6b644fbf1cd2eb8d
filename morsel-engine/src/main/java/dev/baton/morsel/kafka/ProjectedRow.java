package dev.baton.morsel.kafka;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.avro.util.Utf8;

/**
 * The projected fields of one decoded value, by slot ({@link Projection#slot}). Reused from record
 * to record: a string or bytes slot is a view of the decoded value's own bytes ({@link #stringArray},
 * {@link #stringOffset}, {@link #stringLength}), valid until the next decode into this row and while
 * the value's bytes are unchanged, so a caller that keeps one copies it ({@link #string}, {@link #utf8}):
 * a scan that keeps a string copies it once, from the value, where a buffer per slot was a copy more.
 * A slot whose value is null (or whose union branch is null) is {@link #isNull}. Enums read as the
 * reader schema's ordinal.
 *
 * <p>Not thread-safe: one row per scanning worker.
 */
public final class ProjectedRow {

    final long[] longs;
    final double[] doubles;
    /** A string slot's view: the array, where its bytes start, how many. */
    final byte[][] stringArrays;
    final int[] stringOffsets;
    final int[] stringLengths;
    final boolean[] nulls;
    /** {@link #utf8}'s copies, made only when asked for. */
    private final Utf8[] copies;
    /** Repointed at each value: reading one allocates nothing. */
    final WireReader reader = new WireReader();
    /** The plan of the last writer schema id seen by this row: consecutive values mostly share it. */
    int lastSchemaId = -1;
    ProjectionPlan lastPlan;

    ProjectedRow(int slots) {
        longs = new long[slots];
        doubles = new double[slots];
        stringArrays = new byte[slots][];
        stringOffsets = new int[slots];
        stringLengths = new int[slots];
        nulls = new boolean[slots];
        copies = new Utf8[slots];
    }

    /** Points string slot {@code slot} at {@code length} bytes of {@code array} from {@code offset} (not copied). */
    void setString(int slot, byte[] array, int offset, int length) {
        stringArrays[slot] = array;
        stringOffsets[slot] = offset;
        stringLengths[slot] = length;
        nulls[slot] = false;
    }

    public boolean isNull(int slot) {
        return nulls[slot];
    }

    /** An int, long or boolean (1/0) slot; an enum slot's reader ordinal. 0 when null. */
    public long getLong(int slot) {
        return longs[slot];
    }

    public int getInt(int slot) {
        return (int) longs[slot];
    }

    public boolean getBoolean(int slot) {
        return longs[slot] != 0;
    }

    public double getDouble(int slot) {
        return doubles[slot];
    }

    /** The array a string or bytes slot's view reads (not null unless the slot is): read it, never write to it (it is the value's, or the plan's default). */
    public byte[] stringArray(int slot) {
        return stringArrays[slot];
    }

    /** Where a string or bytes slot's bytes start in {@link #stringArray}. */
    public int stringOffset(int slot) {
        return stringOffsets[slot];
    }

    /** How many bytes a string or bytes slot has. */
    public int stringLength(int slot) {
        return stringLengths[slot];
    }

    /** A copy of the slot's bytes in a buffer of this row's, valid until the next call for this slot; null when the value is null. */
    public Utf8 utf8(int slot) {
        if (nulls[slot]) {
            return null;
        }
        Utf8 copy = copies[slot] == null ? copies[slot] = new Utf8() : copies[slot];
        copy.setByteLength(stringLengths[slot]);
        System.arraycopy(stringArrays[slot], stringOffsets[slot], copy.getBytes(), 0, stringLengths[slot]);
        return copy;
    }

    /** A copy of a string slot, or null. */
    public String string(int slot) {
        return nulls[slot] ? null : new String(stringArrays[slot], stringOffsets[slot], stringLengths[slot], StandardCharsets.UTF_8);
    }

    /** A copy of a bytes slot, or null. */
    public byte[] bytes(int slot) {
        if (nulls[slot]) {
            return null;
        }
        return Arrays.copyOfRange(stringArrays[slot], stringOffsets[slot], stringOffsets[slot] + stringLengths[slot]);
    }

    /** Whether a string slot equals {@code value} (null equals null), without copying the slot. */
    public boolean stringEquals(int slot, byte[] utf8Value) {
        if (utf8Value == null || nulls[slot]) {
            return utf8Value == null && nulls[slot];
        }
        int from = stringOffsets[slot];
        return Arrays.equals(stringArrays[slot], from, from + stringLengths[slot], utf8Value, 0, utf8Value.length);
    }

    /** The UTF-8 bytes of {@code value} for {@link #stringEquals}: encode a filter's constant once. */
    public static byte[] utf8Of(String value) {
        return value == null ? null : value.getBytes(StandardCharsets.UTF_8);
    }
}
