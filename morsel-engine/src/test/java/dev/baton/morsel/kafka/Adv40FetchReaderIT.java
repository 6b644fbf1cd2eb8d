package dev.baton.morsel.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import dev.baton.embedded.EmbeddedKafka;

/**
 * An adversary of the {@link FetchReader} (issue 30, h/adv40). The contract: for any topic state and any offset
 * range, the reader hands out exactly the records (partition, offset, key and value bytes, in order) that a
 * {@code read_committed} {@code KafkaConsumer} with the scan's settings ({@link ScanConsumers#readerConfig}) hands
 * out for that range; it never hangs, fails clearly where a range cannot progress, and keeps working when reused
 * (across topics, after a failure, after a cancellation). Every comparison is against a real consumer on the
 * embedded broker; the random ranges come from {@link #SEED}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class Adv40FetchReaderIT {

    /** The seed of every random choice here: a failure replays with it. */
    private static final long SEED = 40L;
    private static final Duration STALL = Duration.ofSeconds(30);

    private EmbeddedKafka kafka;
    private Admin admin;

    @BeforeAll
    void start() {
        kafka = EmbeddedKafka.builder()
                .brokerProperty("log.cleaner.backoff.ms", "200")
                .brokerProperty("message.max.bytes", String.valueOf(8 << 20))
                .build().start();
        admin = Admin.create(kafka.adminConfig());
    }

    @AfterAll
    void stop() {
        admin.close();
        kafka.close();
    }

    /** A record as handed out, its key and value copied; equal when every byte is. */
    record Rec(int partition, long offset, ByteBuffer key, ByteBuffer value) {
        static Rec of(RecordView v) {
            return new Rec(v.partition(), v.offset(), copy(v.key()), copy(v.value()));
        }

        private static ByteBuffer copy(ByteBuffer b) {
            if (b == null) {
                return null;
            }
            ByteBuffer c = ByteBuffer.allocate(b.remaining());
            c.put(b.duplicate()).flip();
            return c;
        }

        @Override
        public String toString() {
            return partition + "@" + offset + "[k=" + text(key) + " v=" + text(value) + "]";
        }

        private static String text(ByteBuffer b) {
            if (b == null) {
                return "null";
            }
            if (b.remaining() > 40) {
                return b.remaining() + " bytes #" + b.hashCode();
            }
            return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
        }
    }

    // ---------------------------------------------------------------- the cases

    /**
     * Contract: a reader reused after a cancelled scan hands out a range's records as a fresh consumer does. What the
     * reader does: the cancelled scan leaves its position ({@code next}) at the range's start while its walk stands past
     * the records already handed out, so scanning the same range again "goes on" from there and drops them.
     * (PartitionCursor's consumer path advances its position per record, so it seeks and hands out all of them.)
     */
    @Test
    void aCancelledRangeScannedAgainHandsOutAllOfItsRecords() throws Exception {
        String topic = "adv40-cancel";
        createTopic(topic, 1, Map.of());
        produceSmall(topic, 0, 2_000, 200);
        OffsetRange range = new OffsetRange(topic, 0, 0, 2_000);
        List<Rec> expected = viaConsumer(range, smallFetches());
        try (FetchReader reader = reader(smallFetches(), STALL)) {
            AtomicInteger seen = new AtomicInteger();
            assertThrows(CancellationException.class, () -> reader.scan(range, r -> seen.incrementAndGet(), () -> seen.get() > 0));
            assertTrue(seen.get() > 0 && seen.get() < 2_000, "the cancelled scan handed out part of the range: " + seen.get());
            List<Rec> again = viaReader(reader, range);
            assertSame(expected, again, "the same range scanned again after a cancellation at offset " + seen.get());
        }
    }

    /**
     * Contract: a reader reused after a failed scan (here the decoder threw) hands out the range again in full. What the
     * reader does: as after a cancellation, it takes the retry for a continuation and starts after the record that failed.
     */
    @Test
    void aRangeWhoseVisitFailedScannedAgainHandsOutAllOfItsRecords() throws Exception {
        String topic = "adv40-visit-fails";
        createTopic(topic, 1, Map.of());
        produceSmall(topic, 0, 300, 50);
        OffsetRange range = new OffsetRange(topic, 0, 0, 300);
        List<Rec> expected = viaConsumer(range, Map.of());
        try (FetchReader reader = reader(Map.of(), STALL)) {
            AtomicInteger seen = new AtomicInteger();
            assertThrows(IllegalArgumentException.class, () -> reader.scan(range, r -> {
                if (seen.incrementAndGet() == 10) {
                    throw new IllegalArgumentException("a decoder failed");
                }
            }, () -> false));
            assertSame(expected, viaReader(reader, range), "the same range scanned again after its 10th record's visit failed");
        }
    }

    /**
     * Contract: a range held by an open transaction fails within the stall limit, naming the last stable offset, after
     * handing out the committed records before it; once the transaction aborts, a fresh reader reads the range as the
     * consumer reads it (an abort whose first offset is before later ranges' starts and whose marker is after them).
     */
    @Test
    void anOpenTransactionFailsWithinTheStallNamingTheLastStableOffsetThenReadsAsTheConsumerOnceAborted() throws Exception {
        openTransactionThenAbort("adv40-open-txn", false);
    }

    /**
     * Contract: as above, but the reader that failed on the open transaction is the one reused once it aborted (a
     * retry of the range that stalled). What the reader does: the failed scan left its position at the range's start
     * while its walk stands at the open transaction, so the retry "goes on" from there and drops the committed records
     * before it (the same fault as after a cancellation or a failed visit).
     */
    @Test
    void aRangeThatStalledOnAnOpenTransactionScannedAgainByTheSameReaderOnceItAborted() throws Exception {
        openTransactionThenAbort("adv40-open-txn-again", true);
    }

    private void openTransactionThenAbort(String topic, boolean reuse) throws Exception {
        createTopic(topic, 1, Map.of());
        try (KafkaProducer<byte[], byte[]> committed = txProducer(topic + "-c", Map.of());
             KafkaProducer<byte[], byte[]> open = txProducer(topic + "-o", Map.of());
             KafkaProducer<byte[], byte[]> plain = producer(Map.of())) {
            committed.beginTransaction();
            for (int i = 0; i < 10; i++) {
                committed.send(rec(topic, 0, "c" + i, "committed " + i)).get();
            }
            committed.commitTransaction();
            open.beginTransaction();
            for (int i = 0; i < 5; i++) {
                open.send(rec(topic, 0, "o" + i, "open " + i)).get();
                plain.send(rec(topic, 0, "p" + i, "plain " + i)).get();
            }
            // the commit's marker is written after commitTransaction returns: the last stable offset reaches it soon after
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> lastStable(topic, 0) == 11);
            long stable = lastStable(topic, 0);
            long end = end(topic, 0);
            assertEquals(11, stable, "the open transaction starts after 10 records and a commit marker");
            OffsetRange range = new OffsetRange(topic, 0, 0, end);
            List<Rec> handed = new ArrayList<>();
            try (FetchReader reader = reader(Map.of(), Duration.ofSeconds(3))) {
                IllegalStateException e = assertTimeoutPreemptively(Duration.ofSeconds(60),
                        () -> assertThrows(IllegalStateException.class, () -> reader.scan(range, r -> handed.add(Rec.of(r)), () -> false)));
                assertTrue(e.getMessage().contains("last stable offset is " + stable), e.getMessage());
                assertSame(viaConsumer(new OffsetRange(topic, 0, 0, stable), Map.of()), handed, "what an open transaction let through");

                open.abortTransaction();
                long after = end(topic, 0);
                try (FetchReader fresh = reader(Map.of(), STALL)) {
                    for (long from : new long[] {0, 11, 12, 14, 17, end - 1}) {
                        OffsetRange r = new OffsetRange(topic, 0, from, after);
                        assertSame(viaConsumer(r, Map.of()), viaReader(reuse ? reader : fresh, r),
                                "after the abort, " + (reuse ? "the reader that stalled" : "a fresh reader") + ": " + r);
                    }
                }
            }
        }
    }

    /**
     * Contract: with transactions of several producers committed and aborted interleaved (and an idempotent plain
     * producer between them), every range [i, j) (ranges that start in an aborted transaction, end on or start at a
     * marker, hold only markers or only aborted records), read by one reused reader or as consecutive morsels, hands out
     * what the consumer hands out.
     */
    @Test
    void interleavedTransactionsEveryRange() throws Exception {
        String topic = "adv40-interleaved";
        createTopic(topic, 1, Map.of());
        try (KafkaProducer<byte[], byte[]> a = txProducer("adv40-il-a", Map.of());
             KafkaProducer<byte[], byte[]> b = txProducer("adv40-il-b", Map.of());
             KafkaProducer<byte[], byte[]> p = producer(Map.of())) {
            a.beginTransaction();
            a.send(rec(topic, 0, "a1", "aborted a1")).get();
            p.send(rec(topic, 0, "x1", "plain x1")).get();
            b.beginTransaction();
            b.send(rec(topic, 0, "b1", "committed b1")).get();
            a.send(rec(topic, 0, "a2", "aborted a2")).get();
            b.send(rec(topic, 0, "b2", "committed b2")).get();
            a.abortTransaction();
            p.send(rec(topic, 0, "x2", "plain x2")).get();
            b.commitTransaction();
            a.beginTransaction();
            a.send(rec(topic, 0, "a3", "committed a3")).get();
            a.commitTransaction();
            b.beginTransaction();
            b.send(rec(topic, 0, "b3", "aborted b3")).get();
            b.send(rec(topic, 0, "b4", "aborted b4")).get();
            b.abortTransaction();
            a.beginTransaction();
            a.abortTransaction(); // nothing sent: no marker either
            a.beginTransaction();
            a.send(rec(topic, 0, "a4", "aborted a4")).get();
            p.send(rec(topic, 0, null, null)).get();
            a.abortTransaction();
            a.beginTransaction();
            a.send(rec(topic, 0, "a5", "committed a5")).get();
            a.commitTransaction();
            b.beginTransaction();
            b.send(rec(topic, 0, "b5", "committed b5")).get();
            b.commitTransaction();
        }
        everyRange(topic, 0, Map.of());
        everyRange(topic, 0, smallFetches());
    }

    /**
     * Contract: every compression, records with null/empty keys and values and headers, in committed and aborted
     * transactions and plain batches, ranges starting and ending mid-batch, fetches that end in part of a batch.
     */
    @Test
    void everyCompressionMidBatch() throws Exception {
        for (String compression : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
            String topic = "adv40-compression-" + compression;
            createTopic(topic, 1, Map.of());
            Map<String, Object> batching = Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression,
                    ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 4_096);
            Random random = new Random(SEED);
            try (KafkaProducer<byte[], byte[]> t = txProducer("adv40-comp-" + compression, batching);
                 KafkaProducer<byte[], byte[]> p = producer(batching)) {
                for (int txn = 0; txn < 6; txn++) {
                    t.beginTransaction();
                    for (int i = 0; i < 60; i++) {
                        t.send(varied(topic, random, "t" + txn + "-" + i));
                        if (i % 20 == 0) {
                            p.send(varied(topic, random, "p" + txn + "-" + i));
                        }
                    }
                    p.flush();
                    t.flush(); // an abort with sends in flight fails them, out of sequence
                    if (txn % 3 == 1) {
                        t.abortTransaction();
                    } else {
                        t.commitTransaction();
                    }
                }
            }
            randomRanges(topic, 0, Map.of(), random, 25);
            randomRanges(topic, 0, smallFetches(), random, 25);
        }
    }

    /**
     * Contract: batches and records larger than max.partition.fetch.bytes and fetch.max.bytes (a 3 MiB value, a batch
     * of 500 records) read as the consumer reads them with the same settings.
     */
    @Test
    void batchesAndRecordsLargerThanTheFetchSizes() throws Exception {
        String topic = "adv40-large";
        createTopic(topic, 1, Map.of("max.message.bytes", String.valueOf(8 << 20)));
        Map<String, Object> big = Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 << 20, ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20,
                ProducerConfig.LINGER_MS_CONFIG, 50);
        byte[] mega = new byte[3 << 20];
        new Random(SEED).nextBytes(mega);
        try (KafkaProducer<byte[], byte[]> p = producer(big)) {
            p.send(new ProducerRecord<>(topic, 0, null, mega)).get();
            p.send(new ProducerRecord<>(topic, 0, new byte[0], new byte[0])).get();
            for (int i = 0; i < 500; i++) {
                p.send(rec(topic, 0, "k" + i, "v".repeat(100) + i));
            }
            p.flush();
            p.send(new ProducerRecord<>(topic, 0, "mega".getBytes(StandardCharsets.UTF_8), mega)).get();
        }
        Map<String, Object> tiny = Map.of("max.partition.fetch.bytes", 1_024, "fetch.max.bytes", 1_024);
        everyChain(topic, 0, tiny, new long[] {1, 3, 7, 100, 1_000});
        randomRanges(topic, 0, tiny, new Random(SEED), 10);
    }

    /**
     * Contract: a compacted topic (offset gaps, batches and transaction markers compacted away, tombstones) reads as the
     * consumer reads it, every range.
     */
    @Test
    void aCompactedTopic() throws Exception {
        String topic = "adv40-compacted";
        createTopic(topic, 1, Map.of("cleanup.policy", "compact", "segment.ms", "100", "min.cleanable.dirty.ratio", "0.001",
                "delete.retention.ms", "0", "min.compaction.lag.ms", "0"));
        try (KafkaProducer<byte[], byte[]> t = txProducer("adv40-compact", Map.of());
             KafkaProducer<byte[], byte[]> p = producer(Map.of())) {
            for (int round = 0; round < 15; round++) {
                t.beginTransaction();
                for (int k = 0; k < 4; k++) {
                    t.send(rec(topic, 0, "key" + k, "round " + round + (round % 5 == 3 ? " aborted" : ""))).get();
                }
                if (round % 5 == 3) {
                    t.abortTransaction();
                } else {
                    t.commitTransaction();
                }
                p.send(rec(topic, 0, "plain" + (round % 3), round % 4 == 0 ? null : "plain " + round)).get();
            }
        }
        OffsetRange written = new OffsetRange(topic, 0, 0, end(topic, 0));
        // Compaction runs in the background (often while the records are still being written): the comparison holds
        // whether or not it has run, but is only interesting after. Compacted, 7 keys are left of 63 records.
        boolean compacted;
        try (KafkaProducer<byte[], byte[]> p = producer(Map.of())) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                p.send(rec(topic, 0, "roll", "a record to roll the segment")).get(); // segment.ms rolls on an append
                return viaConsumer(written, Map.of()).size() <= 10;
            });
            compacted = true;
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            compacted = false;
        }
        // Then the cleaner is stopped (a policy of delete, nothing expiring) and the log left to settle: a pass still running
        // would change the log between the reads this test compares, which tests the cleaner, not the reader.
        org.apache.kafka.common.config.ConfigResource resource =
                new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
        admin.incrementalAlterConfigs(Map.of(resource, List.of(
                new org.apache.kafka.clients.admin.AlterConfigOp(new org.apache.kafka.clients.admin.ConfigEntry("cleanup.policy", "delete"),
                        org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET),
                new org.apache.kafka.clients.admin.AlterConfigOp(new org.apache.kafka.clients.admin.ConfigEntry("retention.ms", "-1"),
                        org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get();
        List<List<Rec>> reads = new ArrayList<>();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(2)).until(() -> {
            reads.add(viaConsumer(written, Map.of()));
            return reads.size() >= 2 && reads.get(reads.size() - 1).equals(reads.get(reads.size() - 2));
        });
        System.out.println("adv40: " + topic + " compacted: " + compacted + " (" + viaConsumer(written, Map.of()).size() + " records in "
                + written.offsets() + " offsets)");
        Random random = new Random(SEED);
        randomRanges(topic, 0, Map.of(), random, 30);
        randomRanges(topic, 0, smallFetches(), random, 30);
    }

    /**
     * Contract: records deleted from the log start (deleteRecords, here to the middle of a batch): a range starting at
     * or after the log start reads as the consumer; one starting before it (planned before the deletion: retention
     * during a long scan) reads what is left of it, from the log's start on, as a range planned now would (the consumer
     * with the scan's settings resets to the end and hands out nothing, which a scan must not pass off as an answer); a
     * range past the log's end fails clearly, naming the log's start.
     */
    @Test
    void recordsDeletedFromTheLogStart() throws Exception {
        String topic = "adv40-deleted";
        createTopic(topic, 1, Map.of());
        try (KafkaProducer<byte[], byte[]> p = producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 50, ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20))) {
            for (int batch = 0; batch < 10; batch++) {
                for (int i = 0; i < 10; i++) {
                    p.send(rec(topic, 0, "k" + batch + "-" + i, "v" + batch + "-" + i));
                }
                p.flush();
            }
        }
        admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(35))).all().get();
        try (FetchReader reader = reader(Map.of(), STALL)) {
            for (OffsetRange r : List.of(new OffsetRange(topic, 0, 35, 100), new OffsetRange(topic, 0, 37, 60), new OffsetRange(topic, 0, 40, 41))) {
                assertSame(viaConsumer(r, Map.of()), viaReader(reader, r), r.toString());
            }
            OffsetRange before = new OffsetRange(topic, 0, 10, 60);
            assertSame(viaConsumer(new OffsetRange(topic, 0, 35, 60), Map.of()), viaReader(reader, before), "begun before the log start: " + before);
            OffsetRange gone = new OffsetRange(topic, 0, 10, 30);
            assertSame(List.of(), viaReader(reader, gone), "wholly deleted: " + gone);
            OffsetRange past = new OffsetRange(topic, 0, 200, 210);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> viaReader(reader, past));
            OffsetRange r = new OffsetRange(topic, 0, 36, 90);
            assertSame(viaConsumer(r, Map.of()), viaReader(reader, r), "after the failure: " + r);
            // The message must name the log's real start: the broker leaves the log start and high watermark of an
            // OFFSET_OUT_OF_RANGE answer at -1, which the reader quotes as "the log starts at -1 and ends at -1".
            assertTrue(e.getMessage().contains("out of range") && e.getMessage().contains("starts at 35"), e.getMessage());
        }
    }

    /** Contract: an empty partition: an empty range hands out nothing; a range past its end fails within the stall, naming why. */
    @Test
    void anEmptyPartition() throws Exception {
        String topic = "adv40-empty";
        createTopic(topic, 2, Map.of());
        produceSmall(topic, 0, 20, 10);
        try (FetchReader reader = reader(Map.of(), Duration.ofSeconds(3))) {
            assertEquals(0, viaReader(reader, new OffsetRange(topic, 1, 0, 0)).size());
            IllegalStateException e = assertTimeoutPreemptively(Duration.ofSeconds(60),
                    () -> assertThrows(IllegalStateException.class, () -> viaReader(reader, new OffsetRange(topic, 1, 0, 3))));
            assertTrue(e.getMessage().contains("last stable offset is 0"), e.getMessage());
            OffsetRange other = new OffsetRange(topic, 0, 0, 20);
            assertSame(viaConsumer(other, Map.of()), viaReader(reader, other), "the other partition after the failure");
        }
    }

    /**
     * Contract: one reader reused across topics and partitions, ranges alternating between them (each partition's
     * ranges consecutive, so they go on from what was parked), hands out each range as the consumer does.
     */
    @Test
    void oneReaderAcrossTopicsAndPartitions() throws Exception {
        String one = "adv40-across-1";
        String two = "adv40-across-2";
        createTopic(one, 3, Map.of());
        createTopic(two, 2, Map.of());
        for (int p = 0; p < 3; p++) {
            produceSmall(one, p, 400 + 37 * p, 60);
        }
        for (int p = 0; p < 2; p++) {
            produceSmall(two, p, 300 + 11 * p, 90);
        }
        Map<TopicPartition, List<Rec>> all = new HashMap<>();
        Map<TopicPartition, Long> at = new HashMap<>();
        List<TopicPartition> tps = List.of(new TopicPartition(one, 0), new TopicPartition(two, 1), new TopicPartition(one, 2),
                new TopicPartition(two, 0), new TopicPartition(one, 1));
        for (TopicPartition tp : tps) {
            all.put(tp, viaConsumer(new OffsetRange(tp.topic(), tp.partition(), 0, end(tp.topic(), tp.partition())), Map.of()));
            at.put(tp, 0L);
        }
        Random random = new Random(SEED);
        try (FetchReader reader = reader(smallFetches(), STALL)) {
            for (int step = 0; step < 80; step++) {
                TopicPartition tp = tps.get(random.nextInt(tps.size()));
                long end = end(tp.topic(), tp.partition());
                long from = at.get(tp);
                if (from >= end) {
                    continue;
                }
                OffsetRange r = new OffsetRange(tp.topic(), tp.partition(), from, Math.min(end, from + 1 + random.nextInt(60)));
                assertSame(filter(all.get(tp), r), viaReader(reader, r), "step " + step + ": " + r + " (seed " + SEED + ")");
                at.put(tp, r.to());
            }
        }
    }

    /**
     * Contract: a topic deleted and recreated with the same name (a new topic id) between two scans of one reader, which
     * was told to forget what it had read (a new job): the second scan hands out the new topic's records, as a fresh
     * consumer does. What the reader does (expected): {@link FetchReader#forget} drops the parked walks but not the fetch
     * it sent ahead, so a range that starts where that fetch asked hands out the deleted topic's records.
     */
    @Test
    void aTopicDeletedAndRecreatedBetweenJobs() throws Exception {
        String topic = "adv40-recreated";
        createTopic(topic, 1, Map.of());
        produceSmall(topic, 0, 300, 100);
        try (FetchReader reader = reader(smallFetches(), STALL)) {
            viaReader(reader, new OffsetRange(topic, 0, 0, 5));
            long ahead = aheadOffset(reader);
            reader.forget();
            admin.deleteTopics(List.of(topic)).all().get();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                createTopic(topic, 1, Map.of());
                return true;
            });
            try (KafkaProducer<byte[], byte[]> p = producer(Map.of())) {
                for (int i = 0; i < 300; i++) {
                    p.send(rec(topic, 0, "new" + i, "the recreated topic's " + i));
                }
            }
            OffsetRange r = new OffsetRange(topic, 0, ahead, ahead + 20);
            assertSame(viaConsumer(r, smallFetches()), viaReader(reader, r), "the recreated topic from the offset fetched ahead, " + r);
            OffsetRange whole = new OffsetRange(topic, 0, 0, 300);
            assertSame(viaConsumer(whole, smallFetches()), viaReader(reader, whole), "the recreated topic, " + whole);
        }
    }

    /** Contract: the same, with the topic recreated while a fresh reader has only its metadata (the old topic id). */
    @Test
    void aTopicRecreatedBetweenMetadataAndFetch() throws Exception {
        String topic = "adv40-recreated-metadata";
        String other = "adv40-recreated-other";
        createTopic(topic, 1, Map.of());
        createTopic(other, 1, Map.of());
        produceSmall(topic, 0, 50, 10);
        produceSmall(other, 0, 50, 10);
        try (FetchReader reader = reader(Map.of(), STALL)) {
            viaReader(reader, new OffsetRange(other, 0, 0, 50)); // metadata now holds the topic's first id
            admin.deleteTopics(List.of(topic)).all().get();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                createTopic(topic, 1, Map.of());
                return true;
            });
            try (KafkaProducer<byte[], byte[]> p = producer(Map.of())) {
                for (int i = 0; i < 80; i++) {
                    p.send(rec(topic, 0, "new" + i, "recreated " + i));
                }
            }
            OffsetRange whole = new OffsetRange(topic, 0, 0, 80);
            assertSame(viaConsumer(whole, Map.of()), viaReader(reader, whole), "the recreated topic, " + whole);
        }
    }

    /** Where the fetch the reader sent ahead asked to read (read reflectively: nothing else shows it). */
    private static long aheadOffset(FetchReader reader) throws ReflectiveOperationException {
        java.lang.reflect.Field f = FetchReader.class.getDeclaredField("ahead");
        f.setAccessible(true);
        Object ahead = f.get(reader);
        if (ahead == null) {
            throw new AssertionError("the reader sent no fetch ahead; the case needs one");
        }
        java.lang.reflect.Method offset = ahead.getClass().getDeclaredMethod("offset");
        offset.setAccessible(true);
        return (long) offset.invoke(ahead);
    }

    // ---------------------------------------------------------------- comparisons

    /** Every range [i, j) by one reused reader, and consecutive morsels of several sizes, against the consumer. */
    private void everyRange(String topic, int partition, Map<String, Object> settings) throws Exception {
        long end = end(topic, partition);
        List<Rec> all = viaConsumer(new OffsetRange(topic, partition, 0, end), settings);
        // The consumer's answer for a range is the whole log's answer cut to it: checked here from every start.
        for (long from = 0; from < end; from++) {
            OffsetRange r = new OffsetRange(topic, partition, from, end);
            assertSame(filter(all, r), viaConsumer(r, settings), "the consumer from " + from);
        }
        try (FetchReader reader = reader(settings, STALL)) {
            for (long from = 0; from < end; from++) {
                for (long to = from; to <= end; to++) {
                    OffsetRange r = new OffsetRange(topic, partition, from, to);
                    assertSame(filter(all, r), viaReader(reader, r), r + " with " + settings);
                }
            }
        }
        everyChain(topic, partition, settings, new long[] {1, 2, 3, 5, 8});
    }

    private void everyChain(String topic, int partition, Map<String, Object> settings, long[] sizes) throws Exception {
        long end = end(topic, partition);
        List<Rec> all = viaConsumer(new OffsetRange(topic, partition, 0, end), settings);
        for (long size : sizes) {
            try (FetchReader reader = reader(settings, STALL)) {
                List<Rec> got = new ArrayList<>();
                for (OffsetRange r : new OffsetRange(topic, partition, 0, end).split(size)) {
                    got.addAll(viaReader(reader, r));
                }
                assertSame(all, got, topic + " as morsels of " + size + " with " + settings);
            }
        }
    }

    private void randomRanges(String topic, int partition, Map<String, Object> settings, Random random, int count) throws Exception {
        long end = end(topic, partition);
        List<Rec> all = viaConsumer(new OffsetRange(topic, partition, 0, end), settings);
        try (FetchReader reader = reader(settings, STALL)) {
            for (int i = 0; i < count; i++) {
                long from = random.nextLong(end);
                OffsetRange r = new OffsetRange(topic, partition, from, from + random.nextLong(end - from + 1));
                List<Rec> fromConsumer = viaConsumer(r, settings);
                assertSame(filter(all, r), fromConsumer, "the consumer for " + r);
                assertSame(fromConsumer, viaReader(reader, r), r + " with " + settings + " (seed " + SEED + ", draw " + i + ")");
                // and on, as the next morsel
                OffsetRange next = new OffsetRange(topic, partition, r.to(), Math.min(end, r.to() + 1 + random.nextInt(50)));
                assertSame(filter(all, next), viaReader(reader, next), "then " + next + " (seed " + SEED + ", draw " + i + ")");
            }
        }
        everyChain(topic, partition, settings, new long[] {1, 7, 64});
    }

    private static List<Rec> filter(List<Rec> all, OffsetRange r) {
        return all.stream().filter(x -> x.offset() >= r.from() && x.offset() < r.to()).toList();
    }

    private static void assertSame(List<Rec> expected, List<Rec> actual, String what) {
        if (!expected.equals(actual)) {
            int i = 0;
            while (i < Math.min(expected.size(), actual.size()) && expected.get(i).equals(actual.get(i))) {
                i++;
            }
            throw new AssertionError(what + ": the consumer hands out " + expected.size() + " records, the reader " + actual.size()
                    + "; first difference at #" + i + ": consumer " + (i < expected.size() ? expected.get(i) : "nothing")
                    + ", reader " + (i < actual.size() ? actual.get(i) : "nothing"));
        }
    }

    private List<Rec> viaReader(FetchReader reader, OffsetRange r) {
        List<Rec> out = new ArrayList<>();
        reader.scan(r, v -> out.add(Rec.of(v)), () -> false);
        return out;
    }

    /** What a read_committed consumer with the scan's settings hands out for {@code r}. */
    private List<Rec> viaConsumer(OffsetRange r, Map<String, Object> settings) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        List<Rec> out = new ArrayList<>();
        try (KafkaConsumer<ByteBuffer, ByteBuffer> consumer = new KafkaConsumer<>(config(settings), new ByteBufferDeserializer(),
                new ByteBufferDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, r.from());
            long deadline = System.nanoTime() + STALL.toNanos();
            while (consumer.position(tp) < r.to()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the consumer made no progress reading " + r + " (at " + consumer.position(tp) + ")");
                }
                for (ConsumerRecord<ByteBuffer, ByteBuffer> c : consumer.poll(Duration.ofMillis(100))) {
                    if (c.offset() < r.to()) {
                        out.add(Rec.of(RecordView.of(c)));
                    }
                }
            }
        }
        return out;
    }

    private FetchReader reader(Map<String, Object> settings, Duration stall) {
        return new FetchReader(config(settings), stall);
    }

    private Map<String, Object> config(Map<String, Object> settings) {
        Map<String, Object> c = new HashMap<>(kafka.adminConfig());
        c.putAll(settings);
        return ScanConsumers.readerConfig(c);
    }

    /** Fetches of a few KiB: responses end in part of a batch, ranges span fetches. */
    private static Map<String, Object> smallFetches() {
        return Map.of("max.partition.fetch.bytes", 3_000, "fetch.max.bytes", 5_000);
    }

    // ---------------------------------------------------------------- writing

    private void createTopic(String topic, int partitions, Map<String, String> configs) throws ExecutionException, InterruptedException {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all().get();
    }

    private long end(String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
    }

    private long lastStable(String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .partitionResult(tp).get().offset();
    }

    private void produceSmall(String topic, int partition, int count, int valueBytes) {
        try (KafkaProducer<byte[], byte[]> p = producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.BATCH_SIZE_CONFIG, 2_048))) {
            for (int i = 0; i < count; i++) {
                p.send(rec(topic, partition, "k" + i, i + "-" + "x".repeat(valueBytes)));
            }
            p.flush();
        }
    }

    private static ProducerRecord<byte[], byte[]> rec(String topic, int partition, String key, String value) {
        return new ProducerRecord<>(topic, partition, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /** Null, empty and sized keys and values, some with headers. */
    private static ProducerRecord<byte[], byte[]> varied(String topic, Random random, String name) {
        byte[] key = switch (random.nextInt(4)) {
            case 0 -> null;
            case 1 -> new byte[0];
            default -> name.getBytes(StandardCharsets.UTF_8);
        };
        byte[] value = switch (random.nextInt(5)) {
            case 0 -> null;
            case 1 -> new byte[0];
            default -> {
                byte[] v = new byte[random.nextInt(300)];
                Arrays.fill(v, (byte) ('a' + random.nextInt(26)));
                yield v;
            }
        };
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, 0, key, value);
        if (random.nextBoolean()) {
            r.headers().add(new RecordHeader("h" + random.nextInt(3), random.nextBoolean() ? null : name.getBytes(StandardCharsets.UTF_8)));
        }
        return r;
    }

    private KafkaProducer<byte[], byte[]> producer(Map<String, Object> settings) {
        Map<String, Object> c = new HashMap<>(kafka.adminConfig());
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.putAll(settings);
        return new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private KafkaProducer<byte[], byte[]> txProducer(String id, Map<String, Object> settings) {
        Map<String, Object> c = new HashMap<>(settings);
        c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        KafkaProducer<byte[], byte[]> p = producer(c);
        p.initTransactions();
        return p;
    }
}
