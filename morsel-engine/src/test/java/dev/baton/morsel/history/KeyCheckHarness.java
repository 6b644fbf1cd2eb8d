package dev.baton.morsel.history;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

/**
 * A measurement, not a test (issue 30, h/decode39): what {@link Utf8Keys#wellFormed} costs per history record, on the
 * bench's history keys held in memory as the scan sees them (a ByteBuffer per key into its fetched batch), by thread
 * CPU on one thread, against the same loop hashing each key as the scan's PageStrings does (so both read the key's
 * bytes from memory, which alone costs more than the check). Run against a held broker
 * ({@code baton bench replay --command-only --command-runs 0 --hold-file F}): {@code java -cp
 * morsel-engine/target/test-classes:morsel-engine/target/classes:cli/target/baton.jar
 * dev.baton.morsel.history.KeyCheckHarness 127.0.0.1:PORT ROUNDS}.
 */
public final class KeyCheckHarness {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        List<ByteBuffer> keys = load(args[0]);
        int rounds = Integer.parseInt(args[1]);
        long bytes = keys.stream().mapToLong(ByteBuffer::remaining).sum();
        System.out.printf("held %,d keys, %.1f bytes per key; the first: hasArray %s, direct %s, read-only %s%n", keys.size(),
                (double) bytes / keys.size(), keys.get(0).hasArray(), keys.get(0).isDirect(), keys.get(0).isReadOnly());
        ByteBuffer[] all = keys.toArray(ByteBuffer[]::new);
        for (int r = 0; r < rounds; r++) {
            double base = time(all, false);
            double check = time(all, true);
            System.out.printf("round %2d  hash only %5.2f  hash + wellFormed %5.2f  difference %5.2f ns/key  load %s%n", r, base, check, check - base,
                    new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/loadavg"))).trim());
        }
    }

    private static double time(ByteBuffer[] keys, boolean check) {
        long sum = 0;
        long t0 = THREADS.getCurrentThreadCpuTime();
        for (int repeat = 0; repeat < 5; repeat++) {
            for (ByteBuffer k : keys) {
                // the scan hashes every key's bytes (PageStrings.add) right after the check: both loops read them
                int hash = StringIds.hash(k.array(), k.arrayOffset() + k.position(), k.remaining());
                sum += check ? (Utf8Keys.wellFormed(k) ? hash : 1) : hash;
            }
        }
        long cpu = THREADS.getCurrentThreadCpuTime() - t0;
        if (sum == 42) {
            System.out.print("");
        }
        return (double) cpu / (5.0 * keys.length);
    }

    private static List<ByteBuffer> load(String bootstrap) {
        Map<String, Object> c = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        List<ByteBuffer> keys = new ArrayList<>();
        try (KafkaConsumer<ByteBuffer, ByteBuffer> consumer = new KafkaConsumer<>(c, new ByteBufferDeserializer(), new ByteBufferDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(BatonTopics.HISTORY, Duration.ofSeconds(30))) {
                parts.add(new TopicPartition(p.topic(), p.partition()));
            }
            Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
            for (TopicPartition tp : parts) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                while (consumer.position(tp) < ends.get(tp)) {
                    for (ConsumerRecord<ByteBuffer, ByteBuffer> r : consumer.poll(Duration.ofSeconds(1))) {
                        keys.add(r.key()); // a view into the fetched batch, as the scan reads it
                    }
                }
            }
        }
        return keys;
    }
}
