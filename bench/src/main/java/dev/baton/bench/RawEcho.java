package dev.baton.bench;

import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicSpec;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Plain consumer/producer stages: dispatch → tasks → completions, keyed like Baton's sites. */
final class RawEcho extends ProducedEcho {
    private static final List<String> TOPICS = List.of("bench.raw.dispatch", "bench.raw.tasks", "bench.raw.completions");
    private final String bootstrap;
    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final byte[] payload;

    RawEcho(String bootstrap, int partitions, int payloadBytes) throws Exception {
        this.bootstrap = bootstrap;
        this.payload = new byte[payloadBytes];
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            // Deleted files go at once (not after the default minute), see close().
            // TopicCreator returns once every partition takes writes (an idempotent first write can be lost before: KAFKA-15591).
            new TopicCreator(admin).create(TOPICS.stream().map(t -> new TopicSpec(t, partitions, (short) 1, Map.of("file.delete.delay.ms", "0"))).toList());
        }
        Map<String, Object> p = ClientConfigs.settings(bootstrap, Map.of("linger.ms", 1, "acks", "all"));
        producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        CountDownLatch ready = new CountDownLatch(3);
        stage(bootstrap, "bench.raw.dispatch", "bench.raw.tasks", ready);
        stage(bootstrap, "bench.raw.tasks", "bench.raw.completions", ready);
        stage(bootstrap, "bench.raw.completions", null, ready);
        if (!ready.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("raw echo stages did not start");
        }
    }

    private void stage(String bootstrap, String from, String to, CountDownLatch ready) {
        Thread t = new Thread(() -> {
            Map<String, Object> c = ClientConfigs.settings(bootstrap, Map.of("group.id", "bench-" + from, "auto.offset.reset", "latest",
                    "fetch.max.wait.ms", 10));
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.subscribe(List.of(from));
                while (consumer.assignment().isEmpty()) {
                    consumer.poll(Duration.ofMillis(50));
                }
                consumer.assignment().forEach(tp -> consumer.position(tp));
                ready.countDown();
                while (running.get()) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
                        if (to != null) {
                            producer.send(new ProducerRecord<>(to, r.key(), r.value()));
                        } else {
                            answers.answered(ByteBuffer.wrap(r.value()).getLong());
                        }
                    }
                }
            }
        }, "raw-" + from);
        t.setDaemon(true);
        t.start();
        threads.add(t);
    }

    @Override
    protected void produce(long id) {
        byte[] value = payload.clone();
        ByteBuffer.wrap(value).putLong(id);
        producer.send(new ProducerRecord<>("bench.raw.dispatch", ("bench/w" + id + "/1").getBytes(), value));
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(10_000);
        }
        producer.close(Duration.ofSeconds(5));
        // The warm raw echo writes gigabytes in its warm-up: the Baton phase should run on a broker
        // holding only its own data (no measurable difference in the one run compared).
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            admin.deleteTopics(TOPICS).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            System.err.println("could not delete the raw echo's topics (the Baton phase runs anyway): " + e);
        }
    }
}
