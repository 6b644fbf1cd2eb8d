package dev.baton.cli.ops;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.baton.events.DeadLetter;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** Reads {@code baton.dlq} from the beginning to its current end, and the replay ledger of each partition. */
final class DeadLetterScan {

    /** The consumer group whose committed offsets' metadata is the replay ledger; no consumer ever joins it. */
    static final String REPLAY_GROUP = "baton-dlq-replay";

    /** One record of {@code baton.dlq}: decoded, or null with why not. */
    record Entry(int partition, long offset, DeadLetter letter, String undecodable) {
        String position() {
            return partition + ":" + offset;
        }
    }

    private DeadLetterScan() {
    }

    static List<Entry> read(Map<String, Object> clientConfig, String schemaRegistryUrl) {
        List<Entry> out = new ArrayList<>();
        try (SchemaRegistry registry = SchemaRegistry.forUrl(schemaRegistryUrl, clientConfig)) {
            EventSerde<DeadLetter> serde = EventSerde.of(DeadLetter.class, registry);
            TopicScan.forEach(clientConfig, BatonTopics.DLQ, p -> true, r -> {
                try {
                    out.add(new Entry(r.partition(), r.offset(), serde.decode(r), null));
                } catch (UndecodableRecordException | IllegalArgumentException e) {
                    out.add(new Entry(r.partition(), r.offset(), null, e.getMessage()));
                }
            });
        }
        return out;
    }

    /** The replay ledger of every {@code baton.dlq} partition that has one. */
    static Map<Integer, ReplayLedger> ledgers(Admin admin) {
        Map<Integer, ReplayLedger> out = new HashMap<>();
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(REPLAY_GROUP).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            committed.forEach((tp, om) -> {
                if (tp.topic().equals(BatonTopics.DLQ) && om != null) {
                    out.put(tp.partition(), ReplayLedger.decode(om.metadata()));
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the replay ledger", e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the replay ledger (group " + REPLAY_GROUP + "): " + e.getMessage(), e);
        }
        return out;
    }
}
