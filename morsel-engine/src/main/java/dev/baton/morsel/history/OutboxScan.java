package dev.baton.morsel.history;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

import dev.baton.events.Outcome;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads the outbox: the records of {@code baton.results} flagged {@code unmatched}, from the
 * beginning to the end offsets of the moment. For one client only the partition its id maps to is
 * read ({@link BatonTopics#resultsPartition}), and only the records keyed by that id are kept, as
 * the client itself does. Undecodable records are counted, not fatal.
 */
public final class OutboxScan {

    /** What a scan found: the outbox entries in log order per partition, and what it read to find them. */
    public record Result(List<OutboxEntry> entries, long recordsRead, long undecodable, String partitionsRead) {
    }

    private OutboxScan() {
    }

    /** @param clientId only this client's outbox, or every client's when null */
    public static Result read(Map<String, Object> clientConfig, String schemaRegistryUrl, String clientId) {
        IntPredicate partitions = p -> true;
        String partitionsRead = "all partitions";
        if (clientId != null) {
            int only = BatonTopics.resultsPartition(clientId, TopicScan.partitionCount(clientConfig, BatonTopics.RESULTS));
            partitions = p -> p == only;
            partitionsRead = "partition " + only;
        }
        List<OutboxEntry> entries = new ArrayList<>();
        long[] read = new long[2]; // records, undecodable
        try (SchemaRegistry registry = SchemaRegistry.forUrl(schemaRegistryUrl, clientConfig)) {
            EventSerde<Outcome> outcomes = EventSerde.of(Outcome.class, registry);
            TopicScan.forEach(clientConfig, BatonTopics.RESULTS, partitions, r -> {
                read[0]++;
                if (clientId != null && (r.key() == null || !clientId.equals(new String(r.key(), StandardCharsets.UTF_8)))) {
                    return; // another client's result sharing the partition
                }
                Outcome o = decode(outcomes, r);
                if (o == null) {
                    read[1]++;
                } else if (o.getUnmatched()) {
                    entries.add(OutboxEntry.of(r, o));
                }
            });
        }
        return new Result(entries, read[0], read[1], partitionsRead);
    }

    private static Outcome decode(EventSerde<Outcome> serde, ConsumerRecord<byte[], byte[]> r) {
        if (r.value() == null) {
            return null;
        }
        try {
            return serde.decode(r);
        } catch (UndecodableRecordException | IllegalArgumentException e) {
            return null; // a dead letter when it was written; the outbox reports, it does not repair
        }
    }
}
