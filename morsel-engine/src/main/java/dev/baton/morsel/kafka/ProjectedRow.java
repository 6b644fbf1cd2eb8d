package dev.baton.morsel.kafka;

import java.nio.charset.StandardCharsets;

import org.apache.avro.util.Utf8;

/**
 * The projected fields of one decoded value, by slot ({@link Projection#slot}). Reused from record
 * to record: strings are {@link Utf8} buffers overwritten by the next decode, so a caller that keeps
 * one copies it ({@link #string}). A slot whose value is null (or whose union branch is null) is
 * {@link #isNull}. Enums read as the reader schema's ordinal.
 *
 * <p>Not thread-safe: one row per scanning worker.
 */
public final class ProjectedRow {

    final long[] longs;
    final double[] doubles;
    final Utf8[] strings;
    final boolean[] nulls;
    /** Repointed at each value: reading one allocates nothing. */
    final WireReader reader = new WireReader();
    /** The plan of the last writer schema id seen by this row: consecutive values mostly share it. */
    int lastSchemaId = -1;
    ProjectionPlan lastPlan;

    ProjectedRow(int slots) {
        longs = new long[slots];
        doubles = new double[slots];
        strings = new Utf8[slots];
        nulls = new boolean[slots];
        for (int i = 0; i < slots; i++) {
            strings[i] = new Utf8();
        }
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

    /** The slot's bytes, valid until the next decode into this row; null when the value is null. */
    public Utf8 utf8(int slot) {
        return nulls[slot] ? null : strings[slot];
    }

    /** A copy of a string slot, or null. */
    public String string(int slot) {
        return nulls[slot] ? null : strings[slot].toString();
    }

    /** A copy of a bytes slot, or null. */
    public byte[] bytes(int slot) {
        if (nulls[slot]) {
            return null;
        }
        byte[] out = new byte[strings[slot].getByteLength()];
        System.arraycopy(strings[slot].getBytes(), 0, out, 0, out.length);
        return out;
    }

    /** Whether a string slot equals {@code value} (null equals null), without copying the slot. */
    public boolean stringEquals(int slot, byte[] utf8Value) {
        if (utf8Value == null || nulls[slot]) {
            return utf8Value == null && nulls[slot];
        }
        Utf8 s = strings[slot];
        if (s.getByteLength() != utf8Value.length) {
            return false;
        }
        byte[] b = s.getBytes();
        for (int i = 0; i < utf8Value.length; i++) {
            if (b[i] != utf8Value[i]) {
                return false;
            }
        }
        return true;
    }

    /** The UTF-8 bytes of {@code value} for {@link #stringEquals}: encode a filter's constant once. */
    public static byte[] utf8Of(String value) {
        return value == null ? null : value.getBytes(StandardCharsets.UTF_8);
    }
}
