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
import org.apache.avro.io.DecoderFactory;

/**
 * The engine's job protocol: the inputs and outputs of its scan and merge activities, as Avro
 * records in Avro's single-object encoding (a marker, the schema's fingerprint, the binary body).
 * The generated classes stay here: the node and the job see only the records below.
 *
 * <p>Steps carry the protocol's version as their first field ({@link #PROTOCOL_VERSION}). A node
 * decodes only steps of its own version written with the schemas it was built with; a step of
 * another version is refused with a {@link JobProtocolException} naming both versions (read from
 * the first field even when the step's schema is unknown here), anything else unreadable with one
 * naming the step. Either way the activity fails terminally: nodes and the dispatching job are
 * upgraded together.
 */
final class JobSteps {

    static final String CONTENT_TYPE = "application/vnd.baton.engine-step+avro";
    /**
     * Version 1 was the first with a version field (the unversioned steps before it are refused as unreadable); version 2
     * adds the job secret ({@link ExchangeSecret}).
     */
    static final int PROTOCOL_VERSION = 2;
    /** Avro single-object encoding: 2 marker bytes and the 8-byte schema fingerprint before the body. */
    private static final int SINGLE_OBJECT_HEADER = 10;

    static {
        // Avro decodes only classes it was told to trust; these are the protocol's, by class.
        AvroTrust.trustBatonEvents(ScanStep.class, Split.class, ScanDone.class, MergeStep.class, AcceptedExecution.class,
                MergedRows.class, GroupSum.class);
    }

    /** A scan step: aggregate {@code split} and write its partials to {@code exchangePartitions} partitions of the job's exchange. */
    record Scan(String job, int exchangePartitions, OffsetRange split, String secret) {
        @Override
        public String toString() { // never the secret: steps are named in logs and failures
            return "Scan[job=" + job + ", exchangePartitions=" + exchangePartitions + ", split=" + split + "]";
        }
    }

    /** A merge step: sum one exchange partition, counting only the partials of the execution accepted for each split. */
    record Merge(String job, int exchangePartition, Map<String, String> acceptedBySplit, String secret) {
        @Override
        public String toString() {
            return "Merge[job=" + job + ", exchangePartition=" + exchangePartition + ", splits=" + acceptedBySplit.size() + "]";
        }
    }

    private JobSteps() {
    }

    static byte[] encodeScan(Scan scan) {
        return encodeScan(scan, PROTOCOL_VERSION);
    }

    /** As a job of protocol {@code version} would write it. */
    static byte[] encodeScan(Scan scan, int version) {
        ScanStep step = ScanStep.newBuilder().setVersion(version).setJob(scan.job()).setExchangePartitions(scan.exchangePartitions())
                .setSplit(split(scan.split())).setSecret(scan.secret()).build();
        return bytes(step::toByteBuffer);
    }

    static Scan decodeScan(byte[] input) {
        ScanStep s;
        try {
            s = ScanStep.fromByteBuffer(ByteBuffer.wrap(input));
        } catch (IOException | RuntimeException e) {
            refuseOtherVersion("scan step", input);
            throw unreadable("scan step", input, e);
        }
        refuseOtherVersion("scan step", s.getVersion());
        try {
            return new Scan(s.getJob(), s.getExchangePartitions(), range(s.getSplit()), s.getSecret());
        } catch (RuntimeException e) {
            throw unreadable("scan step", input, e);
        }
    }

    /** @param acceptedBySplit split → the execution Baton accepted for it (the job's manifest) */
    static byte[] encodeMerge(String job, int exchangePartition, Map<OffsetRange, String> acceptedBySplit, String secret) {
        List<AcceptedExecution> accepted = new ArrayList<>(acceptedBySplit.size());
        acceptedBySplit.forEach((split, execution) -> accepted.add(new AcceptedExecution(split(split), execution)));
        MergeStep step = MergeStep.newBuilder().setVersion(PROTOCOL_VERSION).setJob(job).setExchangePartition(exchangePartition).setAccepted(accepted)
                .setSecret(secret).build();
        return bytes(step::toByteBuffer);
    }

    static Merge decodeMerge(byte[] input) {
        MergeStep m;
        try {
            m = MergeStep.fromByteBuffer(ByteBuffer.wrap(input));
        } catch (IOException | RuntimeException e) {
            refuseOtherVersion("merge step", input);
            throw unreadable("merge step", input, e);
        }
        refuseOtherVersion("merge step", m.getVersion());
        try {
            Map<String, String> accepted = new LinkedHashMap<>();
            m.getAccepted().forEach(a -> accepted.put(range(a.getSplit()).toString(), a.getExecution()));
            return new Merge(m.getJob(), m.getExchangePartition(), accepted, m.getSecret());
        } catch (RuntimeException e) {
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

    /** Refuses a step of another protocol version, read from its first field, if the bytes are single-object encoded. */
    private static void refuseOtherVersion(String what, byte[] input) {
        if (input.length > SINGLE_OBJECT_HEADER && input[0] == (byte) 0xC3 && input[1] == 0x01) {
            int version;
            try {
                version = DecoderFactory.get().binaryDecoder(input, SINGLE_OBJECT_HEADER, input.length - SINGLE_OBJECT_HEADER, null).readInt();
            } catch (IOException | RuntimeException e) {
                return; // not even a version: unreadable, said by the caller
            }
            refuseOtherVersion(what, version);
        }
    }

    private static void refuseOtherVersion(String what, int version) {
        if (version != PROTOCOL_VERSION) {
            throw new JobProtocolException("an engine " + what + " of job protocol version " + version
                    + " reached a node that speaks version " + PROTOCOL_VERSION + "; run the job with a client of the nodes' version, or upgrade the nodes");
        }
    }

    private static JobProtocolException unreadable(String what, byte[] bytes, Exception cause) {
        return new JobProtocolException("not an engine " + what + " in this node's protocol (" + bytes.length + " bytes, "
                + CONTENT_TYPE + " expected): " + cause.getMessage(), cause);
    }
}
