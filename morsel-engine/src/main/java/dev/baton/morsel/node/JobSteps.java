package dev.baton.morsel.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.node.protocol.AcceptedExecution;
import dev.baton.morsel.node.protocol.GroupSum;
import dev.baton.morsel.node.protocol.MergeStep;
import dev.baton.morsel.node.protocol.MergedRows;
import dev.baton.morsel.node.protocol.ScanDone;
import dev.baton.morsel.node.protocol.ScanStep;
import dev.baton.morsel.node.protocol.Split;
import dev.baton.schemas.AvroTrust;

/**
 * The engine's job protocol: the inputs and outputs of its scan and merge activities, as Avro
 * records in Avro's single-object encoding (a marker, the schema's fingerprint, the binary body).
 * The generated classes stay here: the node and the job see only the records below.
 *
 * <p>Both ends must know the writer's schema: a node decodes only steps written with the schemas it
 * was built with, and refuses any other with an {@link IllegalArgumentException} (the activity
 * fails, its reason names the step). Nodes and the dispatching job are upgraded together.
 */
final class JobSteps {

    static final String CONTENT_TYPE = "application/vnd.baton.engine-step+avro";

    static {
        // Avro decodes only classes it was told to trust; these are the protocol's, by class.
        AvroTrust.trustBatonEvents(ScanStep.class, Split.class, ScanDone.class, MergeStep.class, AcceptedExecution.class,
                MergedRows.class, GroupSum.class);
    }

    /** A scan step: aggregate {@code split} and write its partials to {@code exchangePartitions} partitions of the job's exchange. */
    record Scan(String job, int exchangePartitions, OffsetRange split) {
    }

    /** A merge step: sum one exchange partition, counting only the partials of the execution accepted for each split. */
    record Merge(String job, int exchangePartition, Map<String, String> acceptedBySplit) {
    }

    private JobSteps() {
    }

    static byte[] encodeScan(Scan scan) {
        ScanStep step = ScanStep.newBuilder().setJob(scan.job()).setExchangePartitions(scan.exchangePartitions())
                .setSplit(split(scan.split())).build();
        return bytes(step::toByteBuffer);
    }

    static Scan decodeScan(byte[] input) {
        try {
            ScanStep s = ScanStep.fromByteBuffer(ByteBuffer.wrap(input));
            return new Scan(s.getJob(), s.getExchangePartitions(), range(s.getSplit()));
        } catch (IOException | RuntimeException e) {
            throw unreadable("scan step", input, e);
        }
    }

    /** @param acceptedBySplit split → the execution Baton accepted for it (the job's manifest) */
    static byte[] encodeMerge(String job, int exchangePartition, Map<OffsetRange, String> acceptedBySplit) {
        List<AcceptedExecution> accepted = new ArrayList<>(acceptedBySplit.size());
        acceptedBySplit.forEach((split, execution) -> accepted.add(new AcceptedExecution(split(split), execution)));
        MergeStep step = MergeStep.newBuilder().setJob(job).setExchangePartition(exchangePartition).setAccepted(accepted).build();
        return bytes(step::toByteBuffer);
    }

    static Merge decodeMerge(byte[] input) {
        try {
            MergeStep m = MergeStep.fromByteBuffer(ByteBuffer.wrap(input));
            Map<String, String> accepted = new LinkedHashMap<>();
            m.getAccepted().forEach(a -> accepted.put(range(a.getSplit()).toString(), a.getExecution()));
            return new Merge(m.getJob(), m.getExchangePartition(), accepted);
        } catch (IOException | RuntimeException e) {
            throw unreadable("merge step", input, e);
        }
    }

    static byte[] encodeScanDone(String execution) {
        return bytes(new ScanDone(execution)::toByteBuffer);
    }

    static String decodeScanDone(byte[] output) {
        try {
            return ScanDone.fromByteBuffer(ByteBuffer.wrap(output)).getExecution();
        } catch (IOException | RuntimeException e) {
            throw unreadable("scan result", output, e);
        }
    }

    static byte[] encodeRows(Map<Long, long[]> rows) {
        List<GroupSum> groups = new ArrayList<>(rows.size());
        rows.forEach((k, v) -> groups.add(new GroupSum(k, v[0], v[1])));
        return bytes(new MergedRows(groups)::toByteBuffer);
    }

    static Map<Long, long[]> decodeRows(byte[] output) {
        try {
            Map<Long, long[]> rows = new HashMap<>();
            MergedRows.fromByteBuffer(ByteBuffer.wrap(output)).getGroups().forEach(g -> SumRows.add(rows, g.getKey(), g.getSum(), g.getCount()));
            return rows;
        } catch (IOException | RuntimeException e) {
            throw unreadable("merge result", output, e);
        }
    }

    private static Split split(OffsetRange r) {
        return new Split(r.topic(), r.partition(), r.from(), r.to());
    }

    private static OffsetRange range(Split s) {
        return new OffsetRange(s.getTopic(), s.getPartition(), s.getFromOffset(), s.getToOffset());
    }

    /** A generated record's {@code toByteBuffer}: single-object encoding. */
    @FunctionalInterface
    private interface Encoding {
        ByteBuffer encode() throws IOException;
    }

    private static byte[] bytes(Encoding encoding) {
        try {
            ByteBuffer b = encoding.encode();
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode an engine step", e); // in memory: does not happen
        }
    }

    private static IllegalArgumentException unreadable(String what, byte[] bytes, Exception cause) {
        return new IllegalArgumentException("not an engine " + what + " in this node's protocol (" + bytes.length + " bytes, "
                + CONTENT_TYPE + " expected): " + cause.getMessage(), cause);
    }
}
