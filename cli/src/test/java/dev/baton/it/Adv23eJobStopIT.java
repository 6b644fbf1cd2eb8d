package dev.baton.it;

import static dev.baton.it.EngineBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.node.EngineNode;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.LocalCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 23: an operator stops {@code baton engine-group-by} (SIGTERM, Ctrl-C) while its job runs. The job has
 * failed as surely as one that timed out, so, as a timed-out job does, it must cancel the steps it dispatched (a failed
 * job leaves no scan holding a node's slot) and delete its exchange topic (else the job's id is refused until an
 * operator deletes the topic by hand).
 */
class Adv23eJobStopIT {

    private static final String TOPIC = "adv23e-stop-source";
    private static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.start(6, List.of(EngineNode.QUEUE));
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, Object> plain = new HashMap<>(cluster.clientConfig());
        plain.put("max.in.flight.requests.per.connection", 1);
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(plain, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<?>> sends = new ArrayList<>();
            for (long i = 0; i < 20_000; i++) {
                sends.add(p.send(new ProducerRecord<>(TOPIC, bytes(i % 101), bytes(i))));
            }
            for (Future<?> f : sends) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }


    @Test
    void aJobStoppedBySigtermCancelsItsStepsAndDeletesItsExchange() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        AtomicBoolean stopSeen = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        try (EngineNode node = EngineNode.start("stop-node", cluster.clientConfig(), 1, new EngineNode.ScanListener() {
            @Override
            public void partialsWritten(String nodeId, OffsetRange split, String execution) {
            }

            @Override
            public void morselScanned(String nodeId, OffsetRange split, BooleanSupplier cancelled) throws InterruptedException {
                holding.countDown();
                // Hold the scan (a long one) until Baton takes it away, or the test ends.
                try {
                    while (!cancelled.getAsBoolean()) {
                        if (done.await(50, TimeUnit.MILLISECONDS)) {
                            return;
                        }
                    }
                } catch (InterruptedException e) {
                    // a stop interrupts the step's thread as it marks it cancelled
                }
                stopSeen.set(cancelled.getAsBoolean());
            }
        });
             BatonProcess job = BatonProcess.start("adv23e-job", "", Duration.ofSeconds(60), List.of("engine-group-by",
                     "--bootstrap-servers", cluster.bootstrapServers(), "--topic", TOPIC, "--job", "stopped", "--offsets-per-split", "2000",
                     "--exchange-partitions", "2", "--timeout", "PT10M"));
             Admin admin = Admin.create(cluster.clientConfig())) {
            assertThat(holding.await(120, TimeUnit.SECONDS)).as("a scan of the job runs").isTrue();
            assertThat(admin.listTopics().names().get()).contains("baton.exchange.stopped");

            job.stop(); // SIGTERM, as Ctrl-C or a container stop

            try {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    assertThat(stopSeen).as("the running scan of the stopped job was cancelled").isTrue();
                    assertThat(admin.listTopics().names().get()).as("the stopped job's exchange").doesNotContain("baton.exchange.stopped");
                });
            } finally {
                done.countDown();
            }
        }
    }
}
