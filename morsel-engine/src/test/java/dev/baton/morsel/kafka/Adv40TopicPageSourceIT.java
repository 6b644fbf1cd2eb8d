package dev.baton.morsel.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.LongBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.baton.embedded.EmbeddedKafka;

/**
 * An adversary of the column view's scan through the {@link FetchReader} (issue 30, h/adv40), against the same view
 * read with {@code -Dbaton.scan.reader=consumer}. The contract: the view answers as it did through the consumer.
 */
@Timeout(300)
class Adv40TopicPageSourceIT {

    private static final String TOPIC = "adv40-pages";

    /**
     * Contract: a page whose decode failed is decoded again in full when asked for again ({@code decode} sets the
     * page to -1 "until this page is whole: a failed decode must not pass for it"); through the consumer it is (300
     * rows). What the fetch reader does: it takes the second scan of the page's range for a continuation of the failed
     * one and starts after the record whose decode failed, so the page silently has 290 rows.
     */
    @Test
    void aPageWhoseDecodeFailedHasAllOfItsRowsWhenAskedForAgain() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start();
             Admin admin = Admin.create(kafka.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            Map<String, Object> p = new java.util.HashMap<>(kafka.adminConfig());
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                for (int i = 0; i < 300; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, 0, ("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8)));
                }
            }
            List<Long> throughConsumer = offsetsAfterAFailedDecode(kafka, "consumer");
            List<Long> throughFetchReader = offsetsAfterAFailedDecode(kafka, null);
            assertEquals(300, throughConsumer.size(), "the consumer's answer");
            assertEquals(throughConsumer, throughFetchReader, "the page asked for again after its decode failed at the 10th record");
        }
    }

    private static List<Long> offsetsAfterAFailedDecode(EmbeddedKafka kafka, String reader) {
        String before = System.getProperty(ScanConsumers.READER_PROPERTY);
        if (reader == null) {
            System.clearProperty(ScanConsumers.READER_PROPERTY);
        } else {
            System.setProperty(ScanConsumers.READER_PROPERTY, reader);
        }
        AtomicInteger decoded = new AtomicInteger();
        TopicPageSource.RowDecoder decoder = (r, row) -> {
            if (decoded.incrementAndGet() == 10) {
                throw new IllegalStateException("a decode failed");
            }
            row[0] = r.offset();
            return true;
        };
        try (TopicPageSource source = new TopicPageSource(kafka.adminConfig(), List.of(new OffsetRange(TOPIC, 0, 0, 300)), 1, List.of("offset"), decoder)) {
            source.bind(0);
            assertThrows(IllegalStateException.class, () -> source.rowsIn(0));
            int rows = source.rowsIn(0);
            LongBuffer offsets = source.page(0, 0);
            List<Long> out = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                out.add(offsets.get(i));
            }
            return out;
        } finally {
            if (before == null) {
                System.clearProperty(ScanConsumers.READER_PROPERTY);
            } else {
                System.setProperty(ScanConsumers.READER_PROPERTY, before);
            }
        }
    }
}
