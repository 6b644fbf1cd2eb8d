package dev.baton.morsel.kafka;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The steps {@link ProjectionPlan} composes, as static methods whose leading arguments (a slot, a size, a constant)
 * it binds: each ends as a {@code (WireReader, ProjectedRow) void} handle. A leaf writes its slot's null flag too, so
 * every projected slot is written exactly once per value (by a read, a null branch or a default) and the row needs no
 * clearing.
 */
final class PlanSteps {

    static final MethodType STEP = MethodType.methodType(void.class, WireReader.class, ProjectedRow.class);

    private PlanSteps() {
    }

    static MethodHandle step(String name, Class<?>... bound) {
        try {
            return MethodHandles.lookup().findStatic(PlanSteps.class, name, STEP.insertParameterTypes(0, bound));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new IllegalStateException("no step " + name, e);
        }
    }

    static MethodHandle unionIndex() {
        try {
            return MethodHandles.lookup().findStatic(PlanSteps.class, "unionIndex", MethodType.methodType(int.class, WireReader.class, ProjectedRow.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    static void readInt(int slot, WireReader in, ProjectedRow row) throws IOException {
        row.longs[slot] = in.readInt();
        row.nulls[slot] = false;
    }

    static void readLong(int slot, WireReader in, ProjectedRow row) throws IOException {
        row.longs[slot] = in.readLong();
        row.nulls[slot] = false;
    }

    static void readBoolean(int slot, WireReader in, ProjectedRow row) throws IOException {
        row.longs[slot] = in.readBoolean() ? 1 : 0;
        row.nulls[slot] = false;
    }

    static void intToDouble(int slot, WireReader in, ProjectedRow row) throws IOException {
        row.doubles[slot] = in.readInt();
        row.nulls[slot] = false;
    }

    static void longToDouble(int slot, WireReader in, ProjectedRow row) throws IOException {
        row.doubles[slot] = in.readLong();
        row.nulls[slot] = false;
    }

    static void intToFloat(int slot, WireReader in, ProjectedRow row) throws IOException {
        row.doubles[slot] = (float) in.readInt();
        row.nulls[slot] = false;
    }

    static void longToFloat(int slot, WireReader in, ProjectedRow row) throws IOException {
        row.doubles[slot] = (float) in.readLong();
        row.nulls[slot] = false;
    }

    static void floatToDouble(int slot, WireReader in, ProjectedRow row) throws IOException {
        row.doubles[slot] = in.readFloat();
        row.nulls[slot] = false;
    }

    static void readDouble(int slot, WireReader in, ProjectedRow row) throws IOException {
        row.doubles[slot] = in.readDouble();
        row.nulls[slot] = false;
    }

    static void readString(int slot, WireReader in, ProjectedRow row) throws IOException {
        in.readString(row, slot);
    }

    static void readEnum(ProjectionPlan.EnumMapping mapping, int slot, WireReader in, ProjectedRow row) throws IOException {
        row.longs[slot] = mapping.ordinal(in.readInt());
        row.nulls[slot] = false;
    }

    static void skipInt(WireReader in, ProjectedRow row) throws IOException {
        in.readInt();
    }

    static void skipEnum(int symbols, WireReader in, ProjectedRow row) throws IOException {
        int index = in.readInt();
        if (index < 0 || index >= symbols) {
            throw new IllegalArgumentException("enum index " + index + " outside the writer's " + symbols + " symbols");
        }
    }

    static void skipLong(WireReader in, ProjectedRow row) throws IOException {
        in.readLong();
    }

    static void skipBoolean(WireReader in, ProjectedRow row) throws IOException {
        in.readBoolean();
    }

    static void skipFixed(int bytes, WireReader in, ProjectedRow row) throws IOException {
        in.skipFixed(bytes);
    }

    static void skipString(WireReader in, ProjectedRow row) throws IOException {
        in.skipString();
    }

    static void skipUnread(WireReader in, ProjectedRow row) throws IOException {
        in.skipUnread();
    }

    static int unionIndex(WireReader in, ProjectedRow row) throws IOException {
        return in.readInt();
    }

    static void badUnionIndex(int branches, int index, WireReader in, ProjectedRow row) throws IOException {
        throw new IOException("union index " + index + " outside its " + branches + " branches");
    }

    static void setNull(int slot, WireReader in, ProjectedRow row) {
        row.nulls[slot] = true;
    }

    static void setNulls(int[] slots, WireReader in, ProjectedRow row) {
        for (int slot : slots) {
            row.nulls[slot] = true;
        }
    }

    static void fail(String why, WireReader in, ProjectedRow row) {
        throw new ProjectionPlan.Mismatch(why);
    }

    static void defaultLong(long value, int slot, WireReader in, ProjectedRow row) {
        row.longs[slot] = value;
        row.nulls[slot] = false;
    }

    static void defaultDouble(double value, int slot, WireReader in, ProjectedRow row) {
        row.doubles[slot] = value;
        row.nulls[slot] = false;
    }

    static void defaultString(byte[] utf8, int slot, WireReader in, ProjectedRow row) {
        row.setString(slot, utf8, 0, utf8.length); // the plan's own constant: no reader may write to it
    }

    /** A record that contains itself: its body is in {@code body[0]} once compiled (rare: a failure's cause chain). */
    static void recurse(MethodHandle[] body, WireReader in, ProjectedRow row) throws IOException {
        in.enterRecursion();
        try {
            invoke(body[0], in, row);
        } finally {
            in.leaveRecursion();
        }
    }

    /**
     * An array's or a map's blocks as Avro skips a value the reader's schema lacks: a block whose byte size the writer
     * gave is skipped by it, unread; others item by item, each by {@code item} (rare in Baton's events). An array of
     * items that take no bytes ({@code zeroByteItems}) has its blocks counted against Avro's cap first, as
     * {@code GenericDatumReader.skip} counts them; a block skipped by its byte size is not counted, as Avro does not.
     */
    static void blocks(MethodHandle item, boolean zeroByteItems, WireReader in, ProjectedRow row) throws IOException {
        for (long n = in.blockCount(true); n != 0; n = in.blockCount(true)) {
            if (zeroByteItems && n > 0) {
                in.countZeroByteItems(n);
            }
            for (long i = 0; i < n; i++) {
                invoke(item, in, row);
            }
        }
    }

    /**
     * A map's blocks as Avro reads a value the reader's schema has: item by item, a block's byte size read but not used
     * (a wrong size does not move the read). Avro's fast reader checks nothing more at a map block's start.
     * See {@link #blocks} for a value the reader lacks.
     */
    static void items(MethodHandle item, WireReader in, ProjectedRow row) throws IOException {
        long read = 0;
        for (long n = in.itemCount(read); n != 0; n = in.itemCount(read)) {
            for (long i = 0; i < n; i++) {
                invoke(item, in, row);
            }
            read += n;
        }
    }

    /**
     * An array's blocks as Avro reads a value the reader's schema has: as {@link #items}, each block checked against
     * the bytes left (or the cap on items that take no bytes) before its first item, as Avro's fast reader checks it.
     *
     * @param minItemBytes the least encoded size of the reader's item type, computed when the plan is compiled
     */
    static void arrayItems(MethodHandle item, int minItemBytes, WireReader in, ProjectedRow row) throws IOException {
        long read = 0;
        for (long n = in.itemCount(read); n != 0; n = in.itemCount(read)) {
            in.checkArrayBlock(n, minItemBytes);
            for (long i = 0; i < n; i++) {
                invoke(item, in, row);
            }
            read += n;
        }
    }

    /** An enum the query does not read but the reader's schema has: Avro maps its symbol, and refuses one it cannot. */
    static void checkEnum(ProjectionPlan.EnumMapping mapping, WireReader in, ProjectedRow row) throws IOException {
        mapping.ordinal(in.readInt());
    }

    private static void invoke(MethodHandle step, WireReader in, ProjectedRow row) throws IOException {
        try {
            step.invokeExact(in, row);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("a plan's step threw " + t, t);
        }
    }
}
