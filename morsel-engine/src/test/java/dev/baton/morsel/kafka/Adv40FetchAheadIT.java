package dev.baton.morsel.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.baton.embedded.EmbeddedKafka;

/**
 * An adversary of the {@link FetchReader}'s fetch ahead (issue 30, h/adv40). Its javadoc: "After each fetch the next one
 * (the same partition, where the response ends) is sent at once, so the broker reads while the worker walks." Kafka's
 * {@code NetworkClient.send} only queues a request; its bytes go out in a later {@code poll}, and the reader polls only
 * when it next waits for a response. The check: the embedded broker (in this JVM) counts the consumer fetches it
 * received; after a scan that leaves a fetch ahead, the broker must receive it while nobody waits for it.
 * Not a wrong answer: what the overlap the reader was built for would be worth, if the request left at once.
 */
@Timeout(300)
class Adv40FetchAheadIT {

    private static final String TOPIC = "adv40-ahead";

    @Test
    void theFetchSentAheadReachesTheBrokerWhileTheWorkerWalks() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start();
             Admin admin = Admin.create(kafka.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            Map<String, Object> p = new HashMap<>(kafka.adminConfig());
            p.put(ProducerConfig.BATCH_SIZE_CONFIG, 2_048);
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                for (int i = 0; i < 500; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, 0, null, ("value " + i + " ".repeat(100)).getBytes(StandardCharsets.UTF_8)));
                }
            }
            Map<String, Object> client = new HashMap<>(kafka.adminConfig());
            client.put("max.partition.fetch.bytes", 3_000);
            try (FetchReader reader = new FetchReader(ScanConsumers.readerConfig(client), Duration.ofSeconds(30))) {
                long before = consumerFetches();
                assertEquals(5, reader.scan(new OffsetRange(TOPIC, 0, 0, 5), r -> { }, () -> false));
                long[] seen = new long[1];
                // The scan sent one fetch and (its response ending before the log's end) one ahead: two reach the broker.
                try {
                    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> (seen[0] = consumerFetches() - before) >= 2);
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    throw new AssertionError("the broker received " + seen[0] + " fetch(es) in the 10 s after the scan: the one sent ahead "
                            + "had not left the client");
                }
            }
        }
    }

    /** The consumer fetches the broker received, all versions: its request meters' counts. */
    private static long consumerFetches() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        long count = 0;
        for (ObjectName name : server.queryNames(new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=FetchConsumer,*"), null)) {
            count += ((Number) server.getAttribute(name, "Count")).longValue();
        }
        return count;
    }
}
