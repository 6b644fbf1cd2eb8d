package dev.baton.bench.replay;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.baton.morsel.kafka.ScanConsumers;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

/**
 * The limit: consumers that poll a topic from its beginning to its end offsets and drop every
 * record, one per thread, created once and reused run after run, with the scan's fetch settings
 * ({@link ScanConsumers#readerConfig}) and, like the scan's, keys and values left in the fetched batch (no copies).
 * A thread is dealt whole partitions, largest first to the least loaded.
 */
final class RawScan implements AutoCloseable {

    private final List<KafkaConsumer<ByteBuffer, ByteBuffer>> consumers = new ArrayList<>();

    RawScan(Map<String, Object> clientConfig, int threads) {
        for (int t = 0; t < threads; t++) {
            consumers.add(new KafkaConsumer<>(ScanConsumers.readerConfig(clientConfig), new ByteBufferDeserializer(), new ByteBufferDeserializer()));
        }
    }

    /** @return {records, bytes of keys and values} */
    long[] run(String topic) throws InterruptedException {
        KafkaConsumer<ByteBuffer, ByteBuffer> first = consumers.get(0);
        List<TopicPartition> partitions = first.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map((PartitionInfo p) -> new TopicPartition(topic, p.partition())).toList();
        Map<TopicPartition, Long> begin = first.beginningOffsets(partitions);
        Map<TopicPartition, Long> end = first.endOffsets(partitions);
        List<List<TopicPartition>> dealt = new ArrayList<>();
        long[] load = new long[consumers.size()];
        consumers.forEach(c -> dealt.add(new ArrayList<>()));
        for (TopicPartition tp : partitions.stream().sorted(Comparator.comparingLong((TopicPartition tp) -> end.get(tp) - begin.get(tp)).reversed()).toList()) {
            int least = 0;
            for (int t = 1; t < load.length; t++) {
                least = load[t] < load[least] ? t : least;
            }
            load[least] += end.get(tp) - begin.get(tp);
            dealt.get(least).add(tp);
        }
        AtomicLong records = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < consumers.size(); t++) {
            KafkaConsumer<ByteBuffer, ByteBuffer> c = consumers.get(t);
            List<TopicPartition> mine = dealt.get(t);
            Thread thread = new Thread(() -> {
                long n = 0;
                long b = 0;
                c.assign(mine);
                c.seekToBeginning(mine);
                while (mine.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                    for (ConsumerRecord<ByteBuffer, ByteBuffer> r : c.poll(Duration.ofMillis(200))) {
                        n++;
                        b += Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
                    }
                }
                records.addAndGet(n);
                bytes.addAndGet(b);
            }, "raw-scan-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        return new long[] {records.get(), bytes.get()};
    }

    @Override
    public void close() {
        consumers.forEach(KafkaConsumer::close);
    }
}
